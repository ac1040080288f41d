import type { ApiClient } from './api/client';
import { Issue, issueLocation, ScanResult } from './api/types';

/** Characters XML 1.0 cannot carry at all, even escaped; scanner text may hold them. */
const NOT_XML = /[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };
const xml = (text: string | number) =>
  String(text)
    .replace(NOT_XML, '\uFFFD')
    .replace(/[&<>"']/g, (c) => ESCAPES[c]);

const NEW_ISSUES_MAX = 10_000;

/** The issues this scan found first (first_scan_result_id is the scan). */
async function newIssues(api: ApiClient, scanId: string): Promise<Issue[]> {
  const found: Issue[] = [];
  for await (const page of api.issues(new URLSearchParams({ 'filter[scan]': scanId, sort: '-severity' }))) {
    found.push(...page.items.filter((i) => i.first_scan_result_id === scanId));
    if (found.length >= NEW_ISSUES_MAX) break;
  }
  return found.slice(0, NEW_ISSUES_MAX);
}

/**
 * JUnit XML for a CI's test tab: per scan a suite with one case per quality-gate condition (a failure
 * when it does not hold) and one failing case per new issue, so the tab lists what the scan added.
 */
export async function junitReport(api: ApiClient, scans: ScanResult[]): Promise<string> {
  const suites: string[] = [];
  let tests = 0;
  let failures = 0;
  for (const scan of scans) {
    const cases: string[] = [];
    let failed = 0;
    for (const c of scan.quality_gate?.conditions ?? []) {
      const name = `${c.condition_type}${c.condition_value ? ` ${c.condition_value}` : ''} ${c.operator} ${c.value}`;
      const body = c.passed
        ? ''
        : `<failure type="quality-gate" message="${xml(`measured ${c.measured}`)}">${xml(`${name}: measured ${c.measured} (${c.quality_gate_name}, ${c.action})`)}</failure>`;
      cases.push(
        `<testcase classname="${xml(`quality gate.${c.quality_gate_name}`)}" name="${xml(name)}">${body}</testcase>`,
      );
      if (!c.passed) failed++;
    }
    const added = scan.state === 'completed' ? await newIssues(api, scan.id) : [];
    for (const i of added) {
      const where = issueLocation(i);
      cases.push(
        `<testcase classname="${xml(`new issue.${i.tool_name}`)}" name="${xml(`${i.severity}: ${i.title}${where ? ` (${where})` : ''}`)}"${i.file_path ? ` file="${xml(i.file_path)}"` : ''}>` +
          `<failure type="${xml(i.severity)}" message="${xml(i.title)}">${xml(`${i.rule_id ?? i.cve ?? ''} ${where}\nissue ${i.id}`)}</failure></testcase>`,
      );
      failed++;
    }
    if (scan.state !== 'completed') {
      cases.push(
        `<testcase classname="scan" name="scan ${xml(scan.id)}"><error type="${xml(scan.state)}" message="${xml(scan.error ?? scan.state)}"/></testcase>`,
      );
      failed++;
    }
    tests += cases.length;
    failures += failed;
    suites.push(
      `<testsuite name="${xml(`bulwark scan ${scan.id}`)}" tests="${cases.length}" failures="${failed}" timestamp="${xml(scan.finished_at ?? scan.updated_at)}">${cases.join('')}</testsuite>`,
    );
  }
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="bulwark" tests="${tests}" failures="${failures}">${suites.join('')}</testsuites>\n`;
}
