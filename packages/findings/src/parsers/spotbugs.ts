import { Finding, Severity } from '../model';
import { childText, path, XmlElement } from '../io/xml';
import { cwes, line } from '../normalize';
import { ParseContext, XmlFormat } from './common';
import { htmlText } from './text';

/** SpotBugs `priority`: 1 high, 2 normal, 3 low, 4–5 experimental and ignorable. */
const PRIORITY: Record<string, Severity> = { '1': 'high', '2': 'medium', '3': 'low', '4': 'info', '5': 'info' };

/**
 * SpotBugs and FindBugs XML (`<BugCollection>`, with or without `-xml:withMessages`), including
 * Find Security Bugs. A finding is located at the bug's own `<SourceLine>` (else its class's).
 * Instances with one `instanceHash` are SpotBugs' own "same bug" (the hash leaves out the line, e.g.
 * two log calls in one method); they are one finding, as in DefectDojo, counted in `occurrences`.
 */
function* parse(root: XmlElement, ctx: ParseContext): Generator<Finding> {
  const patterns = new Map(path(root, 'BugPattern').map((p) => [p.attrs.type, p]));
  const byHash = new Map<string, Finding>();
  const findings: Finding[] = [];
  for (const bug of path(root, 'BugInstance')) {
    const hash = bug.attrs.instanceHash;
    const seen = hash ? byHash.get(hash) : undefined;
    if (seen) {
      seen.occurrences += 1;
      continue;
    }
    const type = bug.attrs.type;
    const pattern = type ? patterns.get(type) : undefined;
    const source = path(bug, 'SourceLine')[0] ?? path(bug, 'Class', 'SourceLine')[0];
    const title = childText(bug, 'ShortMessage') ?? childText(pattern, 'ShortDescription') ?? type ?? 'SpotBugs bug';
    const f = ctx.finding({
      tool: 'spotbugs',
      toolCategory: 'sast',
      ruleId: type,
      title,
      description: childText(bug, 'LongMessage'),
      severity: PRIORITY[bug.attrs.priority ?? ''] ?? 'medium',
      toolSeverity: bug.attrs.priority,
      cwes: cwes(bug.attrs.cweid ?? pattern?.attrs.cweid),
      tags: [bug.attrs.category, bug.attrs.abbrev].filter((t): t is string => !!t),
      mitigation: htmlText(childText(pattern, 'Details')),
      filePath: source?.attrs.sourcepath ?? source?.attrs.sourcefile,
      startLine: line(source?.attrs.start),
      endLine: line(source?.attrs.end),
      locator: hash ? `instanceHash:${hash}` : undefined,
      toolFingerprints: hash ? { instanceHash: hash } : {},
    });
    if (hash) byHash.set(hash, f);
    findings.push(f);
  }
  yield* findings;
}

export const spotbugs: XmlFormat = {
  id: 'spotbugs',
  title: 'SpotBugs / FindBugs XML (incl. Find Security Bugs)',
  testedWith: 'SpotBugs 4.2.0',
  kind: 'xml',
  detect: (root) => root.name === 'BugCollection',
  parse,
};
