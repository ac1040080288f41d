import { acunetix360, acunetixXml } from './parsers/acunetix';
import { bandit } from './parsers/bandit';
import { blackduckCsv, blackduckZip } from './parsers/blackduck';
import { burp } from './parsers/burp';
import { awsSecurityHub } from './parsers/aws-security-hub';
import { brakeman } from './parsers/brakeman';
import { checkmarxJson } from './parsers/checkmarx-json';
import { checkmarxOne } from './parsers/checkmarx-one';
import { checkmarxXml } from './parsers/checkmarx-xml';
import { checkov } from './parsers/checkov';
import { Format } from './parsers/common';
import { cyclonedxJson, cyclonedxXml } from './parsers/cyclonedx';
import { dependencyCheck } from './parsers/dependency-check';
import { eslint } from './parsers/eslint';
import { fortifyFpr, fortifyFvdl, fortifyXml } from './parsers/fortify';
import { genericCsv, genericJson } from './parsers/generic';
import { githubVulnerability } from './parsers/github-vulnerability';
import { gitlabDependencyScanning } from './parsers/gitlab-dep-scan';
import { gitlabSast } from './parsers/gitlab-sast';
import { gitleaks } from './parsers/gitleaks';
import { grype } from './parsers/grype';
import { hclAppscan } from './parsers/hcl-appscan';
import { horusec } from './parsers/horusec';
import { jfrogXrayUnified } from './parsers/jfrog-xray';
import { kics } from './parsers/kics';
import { nexpose } from './parsers/nexpose';
import { niktoJson, niktoXml } from './parsers/nikto';
import { nmap } from './parsers/nmap';
import { mend } from './parsers/mend';
import { mobsf, mobsfscan } from './parsers/mobsf';
import { msDefenderJson, msDefenderZip } from './parsers/ms-defender';
import { npmAudit } from './parsers/npm-audit';
import { openscap } from './parsers/openscap';
import { openvasCsv, openvasXml } from './parsers/openvas';
import { nuclei } from './parsers/nuclei';
import { osvScanner } from './parsers/osv-scanner';
import { qualysCsv, qualysXml } from './parsers/qualys';
import { prowler, prowlerCsv } from './parsers/prowler';
import { retirejs } from './parsers/retirejs';
import { sarif } from './parsers/sarif';
import { semgrep } from './parsers/semgrep';
import { snyk } from './parsers/snyk';
import { sonarqube } from './parsers/sonarqube';
import { nessusXml, tenableCsv } from './parsers/tenable';
import { spotbugs } from './parsers/spotbugs';
import { stackhawk } from './parsers/stackhawk';
import { sslyzeJson, sslyzeXml } from './parsers/sslyze';
import { trivy } from './parsers/trivy';
import { trufflehog } from './parsers/trufflehog';
import { veracodeJson, veracodeXml } from './parsers/veracode';
import { testsslCsv, testsslJson } from './parsers/testssl';
import { tfsec } from './parsers/tfsec';
import { webinspect } from './parsers/webinspect';
import { wiz } from './parsers/wiz';
import { wpscan } from './parsers/wpscan';
import { zap } from './parsers/zap';

/** Every format, in detection order: formats with distinctive markers come before looser ones. */
export const FORMATS: readonly Format[] = [
  sarif,
  cyclonedxJson,
  bandit,
  semgrep,
  trivy,
  grype,
  npmAudit,
  snyk,
  osvScanner,
  retirejs,
  checkmarxJson,
  checkmarxOne,
  sonarqube,
  checkov,
  kics,
  nuclei,
  trufflehog,
  gitleaks,
  eslint,
  acunetix360,
  niktoJson,
  veracodeJson,
  brakeman,
  horusec,
  gitlabSast,
  gitlabDependencyScanning,
  githubVulnerability,
  jfrogXrayUnified,
  mend,
  mobsf,
  mobsfscan,
  tfsec,
  awsSecurityHub,
  prowler,
  msDefenderJson,
  sslyzeJson,
  stackhawk,
  testsslJson,
  wpscan,
  genericJson,
  cyclonedxXml,
  zap,
  dependencyCheck,
  checkmarxXml,
  burp,
  niktoXml,
  acunetixXml,
  spotbugs,
  veracodeXml,
  openvasXml,
  nessusXml,
  qualysXml,
  nexpose,
  nmap,
  openscap,
  sslyzeXml,
  fortifyXml,
  fortifyFvdl,
  hclAppscan,
  webinspect,
  openvasCsv,
  tenableCsv,
  qualysCsv,
  blackduckCsv,
  prowlerCsv,
  testsslCsv,
  wiz,
  genericCsv,
  fortifyFpr,
  blackduckZip,
  msDefenderZip,
];

export function formatById(id: string): Format | undefined {
  return FORMATS.find((f) => f.id === id);
}
