import { HandlersOf, listPage, requirePrincipal } from '@bulwark/platform';
import type { slaRoutes } from '@bulwark/contracts';
import type { SlaPolicies } from '../sla/sla-policies';
import type { SlaPolicyRecord } from '../store/sla-policies';

export const slaPolicyView = (p: SlaPolicyRecord) => ({
  id: p.id,
  name: p.name,
  author: p.author,
  project_tags: p.projectTags,
  project_codes: p.projectCodes,
  days: p.days,
  known_exploited_days: p.knownExploitedDays,
  created_at: p.createdAt,
  updated_at: p.updatedAt,
});

/** HTTP handlers of SLA policies: they translate, SlaPolicies decides. */
export function slaHandlers(policies: SlaPolicies): HandlersOf<typeof slaRoutes> {
  return {
    createSlaPolicy: async (input) => slaPolicyView(await policies.create(requirePrincipal(input), input.body)),
    listSlaPolicies: async ({ query, ...input }) => {
      const page = { page: query.page, limit: query.limit, name: query.search.name };
      return listPage(query, await policies.list(requirePrincipal(input), page), slaPolicyView);
    },
    getSlaPolicy: async (input) => slaPolicyView(await policies.get(requirePrincipal(input), input.params.id)),
    updateSlaPolicy: async (input) =>
      slaPolicyView(await policies.update(requirePrincipal(input), input.params.id, input.body)),
    deleteSlaPolicies: async (input) => ({ results: await policies.delete(requirePrincipal(input), input.body.ids) }),
  };
}
