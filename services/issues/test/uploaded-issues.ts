import { expectStatus, type GitServer, type Json, startGitServer, SystemUnderTest } from '@bulwark/testkit';
import { MANUAL_TOOL_TYPE, manualCheck, scanSetup } from '../../scanning/test/scanning.suite';

/** A CycloneDX report with vulnerabilities (as Trivy writes it): one issue per CVE, each naming a library. */
export function vulnerabilityReport(cves: string[]): string {
  const lib = { type: 'library', 'bom-ref': 'lodash@4.17.20', name: 'lodash', version: '4.17.20' };
  return JSON.stringify({
    bomFormat: 'CycloneDX',
    specVersion: '1.5',
    version: 1,
    components: [{ ...lib, purl: 'pkg:npm/lodash@4.17.20' }],
    vulnerabilities: cves.map((id) => ({
      id,
      ratings: [{ severity: 'high', score: 7.5, method: 'CVSSv31' }],
      affects: [{ ref: lib['bom-ref'] }],
    })),
  });
}

/** Uploads a report of the CVEs to a new manual check of the project and waits for its issues. */
export async function ingestReport(
  t: SystemUnderTest,
  env: Awaited<ReturnType<typeof scanSetup>>,
  cves: string[],
): Promise<Json[]> {
  const check = await manualCheck(t.admin, env);
  const scan = expectStatus(
    await t.admin
      .withHeaders({ 'content-type': 'application/json' })
      .request('POST', `/api/v1/check/${check}/results`, undefined, vulnerabilityReport(cves)),
    200,
  );
  const deadline = Date.now() + 30000;
  for (;;) {
    const found = expectStatus(
      await t.admin.get(`/api/v1/issues?limit=1000&filter[scan]=${scan.scan_result_id}`),
      200,
    ).items;
    if (found.length === cves.length) return found as Json[];
    if (Date.now() > deadline) throw new Error(`scan ${scan.scan_result_id} not ingested`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The Git server of the projects whose checks take uploaded reports: one repository, `app`. */
export async function appRepository(): Promise<GitServer> {
  const git = await startGitServer();
  git.addRepository('app', { 'app.py': 'print(1)\n' });
  return git;
}

/** A project with a layer whose checks take uploaded reports (the Manual tool), on the `app` repository. */
export const uploadProject = (t: SystemUnderTest, git: GitServer) => scanSetup(t, git, 'app', [MANUAL_TOOL_TYPE]);
export type UploadProject = Awaited<ReturnType<typeof uploadProject>>;
