import { z } from '../zod';
import { int4, isoDateTime, nonBlank, webUrl } from '../common';
import { FieldRule, withFieldRules } from '../field-rules';

export const TRACKER_TYPES = ['redmine', 'jira'] as const;

export type TrackerType = (typeof TRACKER_TYPES)[number];

export const TICKET_GROUPINGS = ['issue', 'rule', 'cve'] as const;

/** Placeholders a field template may use; `{{name}}` anywhere else is refused. */
export const TEMPLATE_PLACEHOLDERS = [
  'title',
  'description',
  'severity',
  'project_code',
  'rule_id',
  'cve',
  'cwes',
  'file_path',
  'start_line',
  'lib_name',
  'lib_version',
  'tool_name',
  'issue_id',
  'count',
  'group',
  'issues',
] as const;

export const name255 = nonBlank(255);

export const placeholderProblem = (text: string) => {
  const unknown = [...text.matchAll(/\{\{\s*([^}]*?)\s*\}\}/g)]
    .map((m) => m[1])
    .filter((p) => !(TEMPLATE_PLACEHOLDERS as readonly string[]).includes(p));
  return unknown.length
    ? `unknown placeholder ${unknown.map((u) => `{{${u}}}`).join(', ')}; known: ${TEMPLATE_PLACEHOLDERS.join(', ')}`
    : undefined;
};

export const template = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .superRefine((v, ctx) => {
      const problem = placeholderProblem(v);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    });

export const credentials = z
  .object({
    api_key: z
      .string()
      .min(1)
      .max(1024)
      .optional()
      .openapi({ description: 'Redmine: the API key of the account Bulwark acts as' }),
    username: z
      .string()
      .min(1)
      .max(255)
      .optional()
      .openapi({ description: 'Basic authentication: Redmine login, or the Jira account\u2019s e-mail' }),
    password: z
      .string()
      .min(1)
      .max(4096)
      .optional()
      .openapi({ description: 'Basic authentication: Redmine password, or a Jira API token' }),
    token: z
      .string()
      .min(1)
      .max(4096)
      .optional()
      .openapi({ description: 'Jira Data Center: a personal access token (Bearer)' }),
  })
  .strict()
  .openapi('TrackerCredentials', {
    description: 'Sealed at rest and never returned; an update that leaves it out keeps the stored one',
    writeOnly: true,
  });

export type TrackerCredentials = z.infer<typeof credentials>;

export const projectMapping = z
  .object({
    project_code: z
      .string()
      .min(1)
      .max(64)
      .openapi({ description: 'A Bulwark project code, or * for every project without its own entry' }),
    tracker_project: nonBlank(255).openapi({ description: 'Redmine project identifier or Jira project key' }),
    issue_type: nonBlank(255).openapi({
      description: 'Redmine tracker name (Bug) or Jira issue type name (Task, Bug)',
    }),
  })
  .strict();

export const statusMapping = z
  .object({
    to_bulwark: z
      .array(z.object({ tracker_status: name255, status_id: int4(1) }).strict())
      .max(100)
      .default([])
      .openapi({
        description: 'A ticket reaching tracker_status moves its linked issues to the Bulwark status status_id',
      }),
    to_tracker: z
      .array(z.object({ status_id: int4(1), tracker_status: name255 }).strict())
      .max(100)
      .default([])
      .openapi({
        description:
          'A linked issue reaching status_id moves its ticket to tracker_status (a Redmine status, or the target status of a Jira transition), with a comment',
      }),
  })
  .strict();

export const fieldTemplates = z
  .object({
    summary: template(1000)
      .optional()
      .openapi({
        description: `Ticket title (cut to 255 characters). Placeholders: ${TEMPLATE_PLACEHOLDERS.map((p) => `{{${p}}}`).join(' ')}`,
      }),
    description: template(20000)
      .optional()
      .openapi({ description: 'Ticket text, same placeholders; {{issues}} lists every issue of the ticket' }),
    labels: z
      .array(z.string().regex(/^[^\s\u0000]{1,255}$/, 'must be one word without spaces'))
      .max(20)
      .optional()
      .openapi({ description: 'Jira labels' }),
  })
  .strict();

export const trackerFields = {
  name: name255,
  type: z.enum(TRACKER_TYPES),
  url: webUrl()
    .max(2048)
    .refine((u) => !/^[a-z]+:\/\/[^/]*@/i.test(u), 'must not carry credentials (give them in credentials)')
    .openapi({
      description:
        'Base address of the tracker (http or https); it must be reachable under the outbound address policy',
    }),
  projects: z.array(projectMapping).max(1000).optional(),
  status_mapping: statusMapping.optional(),
  field_templates: fieldTemplates.optional(),
  jira_api_version: z
    .union([z.literal(2), z.literal(3)])
    .optional()
    .openapi({ description: 'Jira REST API version (default 3: rich-text bodies in Atlassian Document Format)' }),
  sync_enabled: z
    .boolean()
    .optional()
    .openapi({ description: 'Poll the tracker for ticket statuses on the schedule (default true)' }),
};

/** An object that has these keys (each named in properties too, as linters of the document ask). */
const having = (...keys: string[]) => ({ properties: Object.fromEntries(keys.map((k) => [k, {}])), required: keys });

/**
 * The credentials a tracker's type takes: Redmine an API key, or a login and password; Jira a token,
 * or a login and an API token as password, never an API key. Required on creation; an update that
 * leaves them out keeps the stored ones.
 */
function credentialsOfType(create: boolean): FieldRule {
  const given = create ? { required: ['credentials'] } : {};
  return {
    problem: (b) => {
      const c = b.credentials as TrackerCredentials | undefined;
      if (!c) return create ? { field: 'credentials', message: 'is required' } : undefined;
      if (b.type === 'redmine' && !c.api_key && !(c.username && c.password))
        return { field: 'credentials', message: 'Redmine needs api_key, or username and password' };
      if (b.type === 'jira' && !c.token && !(c.username && c.password))
        return { field: 'credentials', message: 'Jira needs token, or username and password (API token)' };
      if (b.type === 'jira' && c.api_key)
        return { field: 'credentials.api_key', message: 'is for Redmine; Jira takes token, or username and password' };
      return undefined;
    },
    schema: {
      if: { properties: { type: { const: 'redmine' } }, required: ['type'] },
      then: { properties: { credentials: { anyOf: [having('api_key'), having('username', 'password')] } }, ...given },
      else: {
        properties: {
          credentials: { anyOf: [having('token'), having('username', 'password')], not: having('api_key') },
        },
        ...given,
      },
    },
  };
}

/** A project is mapped once: stated nowhere (uniqueItems compares whole items, not one property of them). */
const projectsOnce: FieldRule = {
  problem: (b) => {
    const codes = ((b.projects ?? []) as { project_code: string }[]).map((p) => p.project_code);
    const i = codes.findIndex((code, at) => codes.indexOf(code) < at);
    return i < 0 ? undefined : { field: `projects[${i}].project_code`, message: 'repeats a project listed before' };
  },
  schema: {},
};

export const trackerBody = withFieldRules(
  z.object({ ...trackerFields, credentials: credentials.optional() }).strict(),
  [credentialsOfType(true), projectsOnce],
).openapi('TrackerCreate');

export const trackerUpdateBody = withFieldRules(
  z.object({ ...trackerFields, credentials: credentials.optional() }).strict(),
  [credentialsOfType(false), projectsOnce],
).openapi('TrackerUpdate');

export type TrackerBody = z.infer<typeof trackerBody>;

export const trackerView = z
  .object({
    id: z.string(),
    name: z.string(),
    type: z.enum(TRACKER_TYPES),
    url: z.string(),
    has_credentials: z.boolean(),
    projects: z.array(z.object({ project_code: z.string(), tracker_project: z.string(), issue_type: z.string() })),
    status_mapping: z.object({
      to_bulwark: z.array(z.object({ tracker_status: z.string(), status_id: z.number().int() })),
      to_tracker: z.array(z.object({ status_id: z.number().int(), tracker_status: z.string() })),
    }),
    field_templates: z.object({ summary: z.string(), description: z.string(), labels: z.array(z.string()) }),
    jira_api_version: z.number().int(),
    sync_enabled: z.boolean(),
    tickets: z.number().int(),
    last_sync_at: isoDateTime.nullable(),
    last_sync_error: z.string().nullable(),
    created_at: isoDateTime,
    updated_at: isoDateTime,
  })
  .openapi('Tracker');

/** What an issue shows of its ticket. */
export const ticketView = z
  .object({
    tracker_id: z.string(),
    tracker_type: z.enum(TRACKER_TYPES),
    key: z.string(),
    url: z.string(),
    status: z.string().nullable(),
    closed: z.boolean(),
    synced_at: isoDateTime.nullable(),
  })
  .openapi('IssueTicket');

export const ticketResult = z
  .object({
    results: z.array(
      z.object({
        id: z.string(),
        status: z.enum(['linked', 'not_found', 'conflict', 'failed']),
        ticket_key: z.string().optional(),
        message: z.string().optional(),
      }),
    ),
    tickets: z.array(ticketView.extend({ issue_ids: z.array(z.string()) })),
  })
  .openapi('TicketCreation');
