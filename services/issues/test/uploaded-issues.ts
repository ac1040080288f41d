import {
  type GitServer,
  type Json,
  startGitServer,
  SystemUnderTest,
  uploadAndIngest,
  manualCheck,
} from '@bulwark/testkit';
import { MANUAL_TOOL_TYPE, scanSetup } from '../../scanning/test/scanning.suite';

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
  return uploadAndIngest(t.admin, await manualCheck(t.admin, env), vulnerabilityReport(cves), cves.length);
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
