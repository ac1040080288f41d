import { Finding } from '../model';
import { arr, line, obj, str } from '../normalize';
import { hasKeys, JsonFormat, ParseContext } from './common';

/**
 * detect-secrets baseline (`detect-secrets scan > .secrets.baseline`): `results` maps a file to its
 * secrets. One finding per entry (secret type, file, line). The report holds only `hashed_secret`, a
 * SHA-1 of the secret, never the secret; it identifies the secret across rescans where lines move.
 * Entries audited as false positives (`is_secret: false`) keep that as their suppression.
 */
function* parse(doc: unknown, ctx: ParseContext): Generator<Finding> {
  for (const [file, list] of Object.entries(obj(obj(doc).results))) {
    for (const r of arr(list)) {
      const s = obj(r);
      const type = str(s.type) ?? 'Secret';
      const verified = s.is_verified === true;
      yield ctx.finding({
        tool: 'detect-secrets',
        toolCategory: 'secrets',
        ruleId: type,
        title: `${type} in ${str(s.filename) ?? file}`,
        description: `detect-secrets found a potential ${type}${verified ? ', verified' : ''}.`,
        severity: verified ? 'critical' : 'high',
        confidence: verified ? 'verified' : undefined,
        cwes: [798],
        filePath: str(s.filename) ?? file,
        startLine: line(s.line_number),
        locator: str(s.hashed_secret),
        suppression: s.is_secret === false ? { state: 'false_positive', source: 'tool' } : undefined,
      });
    }
  }
}

export const detectSecrets: JsonFormat = {
  id: 'detect-secrets',
  title: 'detect-secrets baseline JSON',
  testedWith: 'detect-secrets 1.0.3',
  kind: 'json',
  detect: (doc) => hasKeys(doc, 'plugins_used', 'results'),
  parse,
};
