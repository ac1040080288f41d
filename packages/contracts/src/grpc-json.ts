import { type Finding, SEVERITIES, TOOL_CATEGORIES } from '@bulwark/findings';
import { invalid } from '@bulwark/platform';
import { ISSUE_SEVERITIES } from './schemas/issues';
import { z } from './zod';

/**
 * JSON carried in gRPC string fields (`*_json`). Each such field has its schema here, applied where
 * the field is decoded (`decodeJson`), so a peer that writes another shape fails at the seam, naming
 * the field, rather than deep in the caller. They stay JSON strings instead of typed proto messages:
 * their shapes are the HTTP API's and the events' (zod, snake_case) or the findings model's, stored
 * as JSON by scanning, which a proto copy would have to follow by hand.
 */

/** `catalog.v1.Tool.settings_json`: the tool's settings without secrets, as the tool type defines them. */
export const toolSettingsJson = z.record(z.string(), z.unknown());
export type ToolSettingsJson = z.infer<typeof toolSettingsJson>;

/** `issues.v1.TopIssuesResponse.issues_json`: one open issue of a report's top list. */
export const topIssueJson = z.object({
  id: z.string(),
  project_code: z.string(),
  tool_name: z.string(),
  category: z.string(),
  title: z.string(),
  severity: z.enum(ISSUE_SEVERITIES),
  status: z.string(),
  cve: z.string().nullable(),
  cwes: z.array(z.number().int()),
  file_path: z.string().nullable(),
  start_line: z.number().int().nullable(),
  lib_name: z.string().nullable(),
  lib_version: z.string().nullable(),
  cvss: z.number().nullable(),
  first_detected_at: z.string(),
  last_detected_at: z.string(),
});
export type TopIssueJson = z.infer<typeof topIssueJson>;

const cvss = z.object({ vector: z.string(), score: z.number().optional() });

/**
 * `scanning.v1.FindingChunk.findings_json`: one normalized finding as the scanning service stored it
 * (camelCase, `@bulwark/findings`' model). Checking it costs about 1.5 µs a finding next to the
 * 2 µs of `JSON.parse` (100,000 findings: 0.1–0.17 CPU-s more), paid only for scans whose findings
 * are read, not for an unchanged re-import.
 */
// Every field of the model has its check here (`satisfies`): a field added there fails the build until it does.
const findingFields = {
  tool: z.string(),
  toolCategory: z.enum(TOOL_CATEGORIES),
  format: z.string(),
  ruleId: z.string().optional(),
  title: z.string(),
  description: z.string().optional(),
  severity: z.enum(SEVERITIES),
  toolSeverity: z.string().optional(),
  confidence: z.string().optional(),
  tags: z.array(z.string()),
  cwes: z.array(z.number()),
  vulnerabilityIds: z.array(z.string()),
  references: z.array(z.string()),
  mitigation: z.string().optional(),
  library: z
    .object({
      name: z.string(),
      version: z.string().optional(),
      fixedVersion: z.string().optional(),
      purl: z.string().optional(),
      ecosystem: z.string().optional(),
    })
    .optional(),
  filePath: z.string().optional(),
  startLine: z.number().optional(),
  endLine: z.number().optional(),
  snippet: z.string().optional(),
  locator: z.string().optional(),
  endpoints: z.array(z.object({ url: z.string(), method: z.string().optional(), parameter: z.string().optional() })),
  resource: z
    .object({
      id: z.string(),
      type: z.string().optional(),
      name: z.string().optional(),
      region: z.string().optional(),
      account: z.string().optional(),
    })
    .optional(),
  cvssV2: cvss.optional(),
  cvssV3: cvss.optional(),
  cvssV4: cvss.optional(),
  cvssScore: z.number().optional(),
  epss: z.object({ score: z.number(), percentile: z.number().optional() }).optional(),
  knownExploited: z.boolean().optional(),
  toolFingerprints: z.record(z.string(), z.string()),
  fingerprint: z.string(),
  suppression: z
    .object({ state: z.string(), source: z.enum(['sarif', 'vex', 'tool']), justification: z.string().optional() })
    .optional(),
  baselineState: z.string().optional(),
  detectedAt: z.string().optional(),
  occurrences: z.number(),
} satisfies Record<keyof Finding, z.ZodType>;
export const findingJson: z.ZodType<Finding> = z.object(findingFields);

/** Decodes one JSON string field with its schema; a value that is not JSON or not of the schema is refused, naming the field. */
export function decodeJson<S extends z.ZodType>(schema: S, text: string, field: string): z.output<S> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalid(`Invalid ${field}: not JSON`, [{ field, problem: 'must be JSON' }]);
  }
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((i) => ({
    field: [field, ...i.path.map(String)].join('.'),
    problem: i.message,
  }));
  throw invalid(`Invalid ${field}: ${problems.map((p) => `${p.field} ${p.problem}`).join('; ')}`, problems);
}
