import type { HandlersOf } from '@bulwark/platform';
import type { assistantRoutes } from '@bulwark/contracts';
import type { AssistantSettings } from '../assistant-settings';
import type { AssistantSettingsRecord } from '../store/assistant-settings';

type IssuesAssistantRoutes = Exclude<(typeof assistantRoutes)[number], { service: 'gateway' }>[];

const view = (s: AssistantSettingsRecord) => ({ write_tools: s.writeTools, updated_at: s.updatedAt });

/** HTTP handlers of the AI assistants' setting: they translate, AssistantSettings decides. */
export function assistantHandlers(settings: AssistantSettings): HandlersOf<IssuesAssistantRoutes> {
  return {
    getAssistantSettings: async () => view(await settings.get()),
    updateAssistantSettings: async (input) => view(await settings.save(input.body.write_tools)),
  };
}
