import { acunetix360, acunetixXml } from './parsers/acunetix';
import { bandit } from './parsers/bandit';
import { blackduckCsv, blackduckZip } from './parsers/blackduck';
import { bundlerAudit, bundlerAuditJson } from './parsers/bundler-audit';
import { burp } from './parsers/burp';
import { anchoreEngine } from './parsers/anchore-engine';
import { dockle } from './parsers/dockle';
import { hadolint } from './parsers/hadolint';
import { kubeBench } from './parsers/kube-bench';
import { kubeaudit } from './parsers/kubeaudit';
import { kubescape } from './parsers/kubescape';
import { neuvector } from './parsers/neuvector';
import { sysdig } from './parsers/sysdig';
import { terrascan } from './parsers/terrascan';
import { trivyOperator } from './parsers/trivy-operator';
import { aqua } from './parsers/aqua';
import { awsSecurityHub } from './parsers/aws-security-hub';
import { brakeman } from './parsers/brakeman';
import { clair } from './parsers/clair';
import { cargoAudit } from './parsers/cargo-audit';
import { checkmarxJson } from './parsers/checkmarx-json';
import { checkmarxOne } from './parsers/checkmarx-one';
import { checkmarxXml } from './parsers/checkmarx-xml';
import { checkov } from './parsers/checkov';
import { Format } from './parsers/common';
import { composerAudit } from './parsers/composer-audit';
import { cppcheck } from './parsers/cppcheck';
import { cyclonedxJson, cyclonedxXml } from './parsers/cyclonedx';
import { dependencyCheck } from './parsers/dependency-check';
import { dependencyTrack } from './parsers/dependency-track';
import { detectSecrets } from './parsers/detect-secrets';
import { eslint } from './parsers/eslint';
import { fortifyFpr, fortifyFvdl, fortifyXml } from './parsers/fortify';
import { genericCsv, genericJson } from './parsers/generic';
import { ggshield } from './parsers/ggshield';
import { githubVulnerability } from './parsers/github-vulnerability';
import { gitlabDependencyScanning } from './parsers/gitlab-dep-scan';
import { gitlabSast } from './parsers/gitlab-sast';
import { gitleaks } from './parsers/gitleaks';
import { gosec } from './parsers/gosec';
import { govulncheck } from './parsers/govulncheck';
import { grype } from './parsers/grype';
import { harbor } from './parsers/harbor';
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
import { pipAudit } from './parsers/pip-audit';
import { pnpmAudit } from './parsers/pnpm-audit';
import { qualysCsv, qualysXml } from './parsers/qualys';
import { prowler, prowlerCsv } from './parsers/prowler';
import { retirejs } from './parsers/retirejs';
import { sarif } from './parsers/sarif';
import { scoutSuite } from './parsers/scout-suite';
import { semgrep } from './parsers/semgrep';
import { snyk } from './parsers/snyk';
import { sonarqube } from './parsers/sonarqube';
import { sonatype } from './parsers/sonatype';
import { spdxJson } from './parsers/spdx';
import { spdxTagValue } from './parsers/spdx-tag-value';
import { nessusXml, tenableCsv } from './parsers/tenable';
import { spotbugs } from './parsers/spotbugs';
import { stackhawk } from './parsers/stackhawk';
import { sslyzeJson, sslyzeXml } from './parsers/sslyze';
import { trivy } from './parsers/trivy';
import { trufflehog } from './parsers/trufflehog';
import { twistlock, twistlockCsv } from './parsers/twistlock';
import { trufflehog3 } from './parsers/trufflehog3';
import { veracodeJson, veracodeXml } from './parsers/veracode';
import { testsslCsv, testsslJson } from './parsers/testssl';
import { tfsec } from './parsers/tfsec';
import { veracodeScaCsv, veracodeScaJson } from './parsers/veracode-sca';
import { webinspect } from './parsers/webinspect';
import { wiz } from './parsers/wiz';
import { wpscan } from './parsers/wpscan';
import { yarnAudit } from './parsers/yarn-audit';
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
  anchoreEngine,
  aqua,
  clair,
  dockle,
  hadolint,
  harbor,
  kubeaudit,
  kubeBench,
  kubescape,
  neuvector,
  scoutSuite,
  terrascan,
  trivyOperator,
  twistlock,
  cargoAudit,
  composerAudit,
  detectSecrets,
  gosec,
  govulncheck,
  pipAudit,
  dependencyTrack,
  pnpmAudit,
  sonatype,
  spdxJson,
  veracodeScaCsv,
  veracodeScaJson,
  yarnAudit,
  ggshield,
  trufflehog3,
  bundlerAudit,
  bundlerAuditJson,
  spdxTagValue,
  cppcheck,
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
  sysdig,
  twistlockCsv,
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
