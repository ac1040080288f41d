import fs from 'node:fs';
import { computeFingerprints, Finding, mergeDuplicates, parseReport } from '@bulwark/findings';
import { relativeToWorkspace } from '../domain/report';

/**
 * One import of a report: parsed, paths made repository-relative before fingerprinting (a fingerprint
 * must not depend on the temporary folder a scan ran in), true duplicates merged.
 */
export function importScanReport(input: string | Buffer, opts: { format?: string; name?: string; workspace?: string }): { format: string; findings: Finding[] } {
  const parsed = parseReport(input, { format: opts.format === 'auto' ? undefined : opts.format, name: opts.name });
  if (opts.workspace) {
    relativeToWorkspace(parsed.findings, fs.realpathSync(opts.workspace));
    relativeToWorkspace(parsed.findings, opts.workspace);
    computeFingerprints(parsed.findings);
  }
  return { format: parsed.format, findings: mergeDuplicates(parsed.findings) };
}
