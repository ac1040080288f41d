import { HandlersOf, requirePrincipal } from '@bulwark/platform';
import { issueViewRoutes } from '@bulwark/contracts';
import type { SavedViews } from '../saved-views';
import type { SavedViewRecord } from '../store/saved-views';

const savedViewView = (v: SavedViewRecord) => ({ id: v.id, name: v.name, query: v.query, created_at: v.createdAt });

/** HTTP handlers of the saved views of the issue list: they translate, SavedViews decides. */
export function savedViewHandlers(views: SavedViews): HandlersOf<typeof issueViewRoutes> {
  return {
    listIssueViews: async (input) => ({ items: (await views.list(requirePrincipal(input))).map(savedViewView) }),
    createIssueView: async (input) =>
      savedViewView(await views.create(requirePrincipal(input), input.body.name, input.body.query)),
    deleteIssueViews: async (input) => ({ results: await views.delete(requirePrincipal(input), input.body.ids) }),
  };
}
