import { FieldProblem, problemsOf } from '@bulwark/platform';
import type { ZodError } from 'zod';
import { DROPPED_LOCAL_TOOL_SETTINGS, SECRET_TOOL_SETTINGS, ToolType } from '@bulwark/contracts';

/**
 * Settings checked against the tool type's schema. A stored api_token fills in one left out; cli and
 * manual tools drop the connection settings they accept. The secret comes back apart from the rest.
 */
export function resolveToolSettings(
  type: ToolType,
  input: Record<string, unknown>,
  storedToken: string | null,
): { settings: Record<string, unknown>; apiToken: string | null; problems: FieldProblem[] } {
  const candidate = { ...input };
  if (type.kind === 'server' && candidate.api_token === undefined && storedToken) candidate.api_token = storedToken;
  const parsed = type.settings.safeParse(candidate);
  if (!parsed.success) {
    return { settings: {}, apiToken: null, problems: settingsProblems(parsed.error) };
  }
  const settings: Record<string, unknown> = { ...parsed.data };
  if (type.kind !== 'server') for (const key of DROPPED_LOCAL_TOOL_SETTINGS) delete settings[key];
  const apiToken = typeof settings.api_token === 'string' ? settings.api_token : null;
  for (const key of SECRET_TOOL_SETTINGS) delete settings[key];
  return { settings, apiToken, problems: [] };
}

/** The problems of a `settings` object, named as the body names them (the object itself: `settings`). */
export function settingsProblems(error: ZodError): FieldProblem[] {
  return problemsOf(error, 'body').map((p) => ({
    field: p.field === 'body' ? 'settings' : `settings.${p.field}`,
    problem: p.problem,
  }));
}
