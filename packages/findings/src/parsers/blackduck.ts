import { Finding, FindingInit } from '../model';
import { readCsv } from '../io/csv';
import { BufferSource } from '../io/source';
import { ZipArchive } from '../io/zip';
import { addCvss, severityOf, vulnIds } from '../normalize';
import { CsvFormat, ParseContext, ZipFormat } from './common';

/** The first non-empty cell among the column names, which changed between Black Duck versions. */
function cell(row: Record<string, string>, ...names: string[]): string | undefined {
  for (const n of names) {
    const v = row[n]?.trim();
    if (v) return v;
  }
  return undefined;
}

const SUPPRESSED = /^(IGNORED|MITIGATED|PATCHED|REMEDIATION_COMPLETE|DUPLICATE)$/i;

/** Where a component was found, from the archive's files report: component and version id → paths. */
type Paths = Map<string, string[]>;

function* findings(rows: Record<string, string>[], ctx: ParseContext, paths?: Paths): Generator<Finding> {
  for (const row of rows) {
    const id = cell(row, 'Vulnerability id');
    if (!id) continue;
    const name = cell(row, 'Component name', 'Project name') ?? 'unknown';
    const version = cell(row, 'Component version name', 'Version');
    const word = cell(row, 'Security Risk', 'Severity');
    const status = cell(row, 'Remediation status');
    const origin = cell(row, 'Channel version origin id', 'Component origin id');
    const componentKey = `${cell(row, 'Project id', 'Component id') ?? ''}/${cell(row, 'Version id', 'Component version id') ?? ''}`;
    const init: FindingInit = {
      tool: 'blackduck',
      toolCategory: 'sca',
      ruleId: id,
      title: `${name}${version ? ` ${version}` : ''} | ${id}`,
      description: cell(row, 'Description'),
      severity: severityOf(word) ?? severityOf(Number(cell(row, 'Overall score', 'Base score') ?? -1)) ?? 'info',
      toolSeverity: word,
      vulnerabilityIds: vulnIds([id], cell(row, 'Related vuln id') ?? ''),
      cwes: [],
      references: [cell(row, 'URL')].filter((u): u is string => !!u),
      mitigation: cell(row, 'Solution'),
      library: { name, version, ecosystem: cell(row, 'Channel version origin', 'Origin name') },
      filePath: paths?.get(componentKey)?.[0] ?? origin,
      suppression:
        status && SUPPRESSED.test(status)
          ? { state: status.toLowerCase(), source: 'tool', justification: cell(row, 'Remediation comment') }
          : undefined,
      detectedAt: cell(row, 'Published on'),
    };
    const cweIds = cell(row, 'CWE Ids');
    if (cweIds) init.cwes = [...cweIds.matchAll(/\d+/g)].map((m) => Number(m[0]));
    addCvss(init, undefined, cell(row, 'Base score', 'Overall score'));
    yield ctx.finding(init);
  }
}

function isSecurityHeader(header: string[]): boolean {
  return (
    header.includes('Vulnerability id') &&
    header.includes('Security Risk') &&
    (header.includes('Project name') || header.includes('Component name'))
  );
}

/** Black Duck (Hub) vulnerability report CSV (`security.csv`): one finding per component vulnerability. */
export const blackduckCsv: CsvFormat = {
  id: 'blackduck-csv',
  title: 'Black Duck vulnerability report CSV',
  testedWith: 'Black Duck vulnerability report CSV, from corpus samples that carry no tool version',
  kind: 'csv',
  detect: isSecurityHeader,
  parse: (rows, ctx) => findings(rows, ctx),
};

/** Report CSVs inside the archive are named `security.csv` or `security_<date>.csv`, in any folder. */
function entry(archive: ZipArchive, prefix: string): string | undefined {
  return archive.names.find((n) => new RegExp(`(^|/)${prefix}(_[^/]*)?\\.csv$`, 'i').test(n));
}

function filePaths(archive: ZipArchive): Paths {
  const name = entry(archive, 'files');
  const paths: Paths = new Map();
  if (!name) return paths;
  for (const row of readCsv(new BufferSource(archive.read(name))).rows) {
    const path = cell(row, 'Path');
    if (!path) continue;
    const key = `${cell(row, 'Project id', 'Component id') ?? ''}/${cell(row, 'Version id', 'Component version id') ?? ''}`;
    const archiveContext = cell(row, 'Archive context');
    const list = paths.get(key) ?? [];
    list.push(archiveContext ? `${archiveContext.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}` : path);
    paths.set(key, list);
  }
  return paths;
}

/**
 * Black Duck report archive (the zip of `security`, `files`, `components`, ... CSVs): the findings
 * of the security report, each located at the first path the files report gives for its component.
 */
export const blackduckZip: ZipFormat = {
  id: 'blackduck-zip',
  title: 'Black Duck report archive (zip of CSV reports)',
  testedWith: 'Black Duck report archives, from corpus samples that carry no tool version',
  kind: 'zip',
  detect: (archive) => entry(archive, 'security') !== undefined,
  parse: (archive, ctx) => {
    const bytes = archive.read(entry(archive, 'security') ?? 'security.csv');
    // A project without vulnerabilities gets an empty security report.
    if (bytes.toString('utf8').trim() === '') return [];
    return findings(readCsv(new BufferSource(bytes)).rows, ctx, filePaths(archive));
  },
};
