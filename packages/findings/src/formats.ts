import { bandit } from './parsers/bandit';
import { Format } from './parsers/common';
import { cyclonedxJson, cyclonedxXml } from './parsers/cyclonedx';
import { gitleaks } from './parsers/gitleaks';
import { grype } from './parsers/grype';
import { npmAudit } from './parsers/npm-audit';
import { osvScanner } from './parsers/osv-scanner';
import { retirejs } from './parsers/retirejs';
import { sarif } from './parsers/sarif';
import { semgrep } from './parsers/semgrep';
import { snyk } from './parsers/snyk';
import { trivy } from './parsers/trivy';

/** Every format, in detection order: formats with distinctive markers come before looser ones. */
export const FORMATS: readonly Format[] = [
  sarif,
  cyclonedxJson,
  cyclonedxXml,
  bandit,
  semgrep,
  gitleaks,
  trivy,
  grype,
  npmAudit,
  snyk,
  osvScanner,
  retirejs,
];

export function formatById(id: string): Format | undefined {
  return FORMATS.find((f) => f.id === id);
}
