import { Finding, Severity } from '../model';
import { arr, obj, str } from '../normalize';
import { each, hasKeys, JsonFormat, ParseContext } from './common';

/** Dockle's levels; `SKIP`, `PASS` and `IGNORE` are not findings. */
const LEVELS: Record<string, Severity> = { FATAL: 'high', WARN: 'medium', INFO: 'low' };

/**
 * `dockle -f json IMAGE` (0.2–0.4): one finding per checkpoint in `details`, its alerts joined into
 * the description (a checkpoint's alerts are the places it saw, e.g. each file with setuid).
 */
function* parse(doc: unknown, ctx: ParseContext): Generator<Finding> {
  const image = str(obj(doc).image);
  for (const d of each(obj(doc).details)) {
    const x = obj(d);
    const level = (str(x.level) ?? '').toUpperCase();
    const severity = LEVELS[level];
    if (!severity) continue;
    const code = str(x.code) ?? 'dockle';
    yield ctx.finding({
      tool: 'dockle',
      toolCategory: 'container',
      ruleId: code,
      title: `${code}: ${str(x.title) ?? code}`,
      description: arr(x.alerts).map(String).join('\n') || undefined,
      severity,
      toolSeverity: level,
      tags: ['image'],
      references: [`https://github.com/goodwithtech/dockle/blob/master/CHECKPOINT.md#${code.toLowerCase()}`],
      resource: image ? { id: image, type: 'container-image', name: image } : undefined,
    });
  }
}

export const dockle: JsonFormat = {
  id: 'dockle',
  title: 'Dockle JSON (dockle -f json)',
  testedWith: 'Dockle 0.2–0.4',
  kind: 'json',
  detect: (doc) => hasKeys(doc, 'summary', 'details') && hasKeys(obj(doc).summary, 'fatal', 'warn', 'pass'),
  parse,
};
