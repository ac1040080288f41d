import { Finding } from '../model';
import { cwes, line, obj, str } from '../normalize';
import { each, hasKeys, JsonFormat, ParseContext } from './common';

function* parse(doc: unknown, ctx: ParseContext): Generator<Finding> {
  const o = obj(doc);
  const scan = obj(o.scan_info);
  // Warnings the project marked as ignored in brakeman.ignore are written apart; they stay findings, suppressed.
  const sets: [unknown, boolean][] = [
    [o.warnings, false],
    [o.ignored_warnings, true],
  ];
  for (const [warnings, ignored] of sets) {
    for (const w of each(warnings)) {
      const x = obj(w);
      const type = str(x.warning_type) ?? 'Brakeman warning';
      const confidence = str(x.confidence);
      yield ctx.finding({
        tool: 'brakeman',
        toolCategory: 'sast',
        ruleId: str(x.check_name) ?? type,
        title: str(x.message) ? `${type}: ${String(x.message)}` : type,
        description:
          [str(x.message), str(x.user_input) && `User input: ${String(x.user_input)}`].filter(Boolean).join('\n') ||
          undefined,
        // Brakeman rates only its confidence, not the severity; DefectDojo reads every warning as medium.
        severity: 'medium',
        confidence,
        tags: [type],
        cwes: cwes(x.cwe_id),
        references: [str(x.link)].filter((u): u is string => !!u),
        filePath: str(x.file),
        startLine: line(x.line),
        snippet: str(x.code),
        // Brakeman's own fingerprint leaves out the line, so it survives edits above the warning.
        locator: str(x.fingerprint),
        suppression: ignored ? { state: 'ignored', source: 'tool', justification: str(x.note) } : undefined,
        detectedAt: str(scan.end_time),
      });
    }
  }
}

export const brakeman: JsonFormat = {
  id: 'brakeman',
  title: 'Brakeman JSON (brakeman -f json)',
  testedWith: 'Brakeman 4.7.2',
  kind: 'json',
  detect: (doc) =>
    hasKeys(doc, 'scan_info', 'warnings') &&
    ['brakeman_version', 'checks_performed'].some((k) => k in obj(obj(doc).scan_info)),
  parse,
};
