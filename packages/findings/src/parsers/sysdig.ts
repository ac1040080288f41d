import { InputError } from '../errors';
import { CloudResource, Finding, FindingInit } from '../model';
import { addCvss, str } from '../normalize';
import { CsvFormat, ParseContext } from './common';
import { packageVulnerability } from './package-vulnerability';

/** A vulnerability id as Sysdig writes it: CVE-…, GHSA-…, ALAS-…, never free text. */
const VULN_ID = /^[A-Za-z][A-Za-z0-9]*(-[A-Za-z0-9.:_]+)+$/;

/** The first non-empty cell among the column names of the two CSV layouts. */
function cell(row: Record<string, string>, ...names: string[]): string | undefined {
  for (const n of names) {
    const v = str(row[n]);
    if (v) return v.trim();
  }
  return undefined;
}

/** The workload where the export names one (runtime view), else the image (pipeline and registry view). */
function resourceOf(row: Record<string, string>, image: string | undefined): CloudResource | undefined {
  const workload = [
    cell(row, 'Kubernetes Cluster Name', 'K8S cluster name'),
    cell(row, 'Kubernetes Namespace Name', 'K8S namespace name'),
    cell(row, 'Kubernetes Workload Type', 'K8S workload type'),
    cell(row, 'Kubernetes Workload Name', 'K8S workload name'),
    cell(row, 'Kubernetes Container Name', 'K8S container name'),
  ];
  if (workload[3]) return { id: workload.filter(Boolean).join('/'), type: workload[2], name: workload[3] };
  return image ? { id: image, type: 'container-image', name: image } : undefined;
}

/**
 * Sysdig Secure vulnerability report CSV: the legacy reporting layout (`Vulnerability ID`,
 * `Package name`, ...) and the 2024+ layout (`Vulnerability Name`, `Package Name`, Kubernetes
 * columns). One finding per row: a vulnerability in one package at one path of one image, on one
 * workload where the runtime report names it. Severity is Sysdig's word; Negligible and anything
 * else unrated are info. A row whose id cell is not a vulnerability id was shifted by a missing
 * or extra cell, so the file is rejected rather than read into wrong columns.
 */
function* parse(rows: Iterable<Record<string, string>>, ctx: ParseContext): Generator<Finding> {
  let n = 1;
  for (const row of rows) {
    n++;
    const id = cell(row, 'Vulnerability ID', 'Vulnerability Name');
    if (!id || !VULN_ID.test(id)) {
      throw new InputError(
        `row ${n}: "${id ?? ''}" is not a vulnerability id; the row's cells do not match the header`,
      );
    }
    const name = cell(row, 'Package name', 'Package Name') ?? 'unknown';
    const version = cell(row, 'Package version', 'Package Version');
    const fixed = cell(row, 'Fix version', 'Fix Version', 'Package suggested fix');
    const image = cell(row, 'Image', 'Image Name');
    const sev = cell(row, 'Severity', 'Vulnerability Severity') ?? 'Unknown';
    const type = cell(row, 'Package type', 'Package Type');
    const init: FindingInit = {
      tool: 'sysdig',
      toolCategory: 'container',
      ...packageVulnerability({ id, name, version, fixedVersion: fixed, ecosystem: type, severity: sev }),
      title: `${id} - ${name}${version ? ` ${version}` : ''}`,
      description:
        [
          image && `Image: ${image}`,
          cell(row, 'OS Name') && `OS: ${cell(row, 'OS Name')}`,
          cell(row, 'Image ID') && `Image ID: ${cell(row, 'Image ID')}`,
        ]
          .filter(Boolean)
          .join('\n') || undefined,
      tags: [
        `PackageName:${name}`,
        version && `PackageVersion:${version}`,
        `VulnId:${id}`,
        type && `PackageType:${type}`,
        /^true$/i.test(cell(row, 'Public Exploit') ?? '') ? 'public-exploit' : undefined,
      ].filter((t): t is string => !!t),
      references: [cell(row, 'Vuln link')].filter((u): u is string => !!u),
      filePath: cell(row, 'Package path', 'Package Path'),
      resource: resourceOf(row, image),
      suppression: /^true$/i.test(cell(row, 'Risk accepted', 'Risk Accepted') ?? '')
        ? { state: 'risk-accepted', source: 'tool' }
        : undefined,
    };
    if (cell(row, 'CISA KEV Publish Date')) init.knownExploited = true;
    addCvss(init, cell(row, 'CVSS vector', 'CVSS Vector'), cell(row, 'CVSS score', 'CVSS Score'));
    yield ctx.finding(init);
  }
}

export const sysdig: CsvFormat = {
  id: 'sysdig',
  title: 'Sysdig Secure vulnerability report CSV (legacy and current reporting layouts)',
  testedWith: 'Sysdig Secure legacy reporting and the 2024+ report layout',
  kind: 'csv',
  detect: (header) =>
    (header.includes('Vulnerability ID') && header.includes('Package suggested fix') && header.includes('Image ID')) ||
    (header.includes('Vulnerability Name') && header.includes('Vulnerability Severity') && header.includes('Image ID')),
  parse,
};
