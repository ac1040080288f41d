import { Finding } from '../model';
import { arr, isObj, line, obj, str } from '../normalize';
import { each, hasKeys, JsonFormat, ParseContext } from './common';

/**
 * GitGuardian ggshield `secret scan ... --json`: a path or pre-commit scan lists
 * `entities_with_incidents` (files) at the top; a commit-range or repo scan lists `scans`, one per
 * commit, each with its files. One finding per incident (a secret in a file): `ignore_sha` is
 * GitGuardian's identity of the secret, so the same secret in several commits is one finding, as
 * GitGuardian's dashboard counts it. ggshield writes matches partly masked; they are still left out.
 * A secret GitGuardian checked as valid is critical, any other high.
 */
function* entities(list: unknown, scan: Record<string, unknown>, ctx: ParseContext): Generator<Finding> {
  const info = obj(scan.extra_info);
  const date = str(info.date) ? new Date(String(info.date)) : undefined;
  for (const e of each(list)) {
    const entity = obj(e);
    const file = str(entity.filename);
    for (const i of arr(entity.incidents)) {
      const incident = obj(i);
      const type = str(incident.type) ?? 'Secret';
      const validity = str(incident.validity);
      const occurrences = arr(incident.occurrences).map(obj);
      yield ctx.finding({
        tool: 'ggshield',
        toolCategory: 'secrets',
        ruleId: type,
        title: `Hard coded ${type} found in ${file ?? 'source'}`,
        description:
          [
            str(incident.policy) && `Policy: ${String(incident.policy)}`,
            validity && `Validity: ${validity}`,
            str(scan.id) && `Commit: ${String(scan.id)}`,
            str(info.author) && `Author: ${String(info.author)}`,
            `Occurrences: ${str(incident.total_occurrences) ?? occurrences.length}`,
          ]
            .filter(Boolean)
            .join('\n') || undefined,
        severity: validity === 'valid' ? 'critical' : 'high',
        confidence: validity,
        cwes: [798],
        filePath: file,
        startLine: line(occurrences[0]?.line_start),
        endLine: line(occurrences[0]?.line_end),
        locator: str(incident.ignore_sha),
        detectedAt: date && !Number.isNaN(date.getTime()) ? date.toISOString() : undefined,
      });
    }
  }
}

function* parse(doc: unknown, ctx: ParseContext): Generator<Finding> {
  const o = obj(doc);
  yield* entities(o.entities_with_incidents, o, ctx);
  for (const s of each(o.scans)) if (isObj(s)) yield* entities(s.entities_with_incidents, s, ctx);
}

export const ggshield: JsonFormat = {
  id: 'ggshield',
  title: 'GitGuardian ggshield secret scan --json',
  testedWith: 'ggshield 1.x',
  kind: 'json',
  detect: (doc) =>
    hasKeys(doc, 'id', 'type', 'total_incidents') && ('scans' in obj(doc) || 'entities_with_incidents' in obj(doc)),
  parse,
};
