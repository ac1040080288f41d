import { Finding } from '../model';
import { line, obj, severityOf, str } from '../normalize';
import { each, hasKeys, JsonFormat, ParseContext } from './common';

function* parse(doc: unknown, ctx: ParseContext): Generator<Finding> {
  for (const q of each(obj(doc).queries)) {
    const query = obj(q);
    const sev = str(query.severity);
    const name = str(query.query_name) ?? 'KICS query';
    for (const f of each(query.files)) {
      const file = obj(f);
      yield ctx.finding({
        tool: 'kics',
        toolCategory: 'iac',
        ruleId: str(query.query_id) ?? name,
        title: str(query.category) ? `${String(query.category)}: ${name}` : name,
        description:
          [
            str(query.description),
            str(file.actual_value) && `Actual: ${String(file.actual_value)}`,
            str(file.search_key) && `Key: ${String(file.search_key)}`,
          ]
            .filter(Boolean)
            .join('\n') || undefined,
        severity: severityOf(sev) ?? 'info',
        toolSeverity: sev,
        tags: [str(query.platform)].filter((t): t is string => !!t),
        references: [str(query.query_url)].filter((u): u is string => !!u),
        mitigation: str(file.expected_value),
        filePath: str(file.file_name),
        startLine: line(file.line),
        // KICS's similarity id is stable across scans but shared by the checks of one block (apiGroups,
        // resources, verbs of an RBAC rule); the expected value tells those apart.
        locator: `${str(file.similarity_id) ?? str(file.search_key) ?? ''}|${str(file.expected_value) ?? ''}`,
      });
    }
  }
}

export const kics: JsonFormat = {
  id: 'kics',
  title: 'KICS JSON (kics scan --report-formats json)',
  testedWith: 'KICS JSON, from corpus samples that carry no tool version',
  kind: 'json',
  detect: (doc) =>
    hasKeys(doc, 'queries') &&
    (hasKeys(doc, 'kics_version') || hasKeys(doc, 'queries_total') || hasKeys(doc, 'files_scanned')),
  parse,
};
