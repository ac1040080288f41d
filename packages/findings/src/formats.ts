import { bandit } from './parsers/bandit';
import { Format } from './parsers/common';
import { gitleaks } from './parsers/gitleaks';
import { sarif } from './parsers/sarif';
import { semgrep } from './parsers/semgrep';
import { trivy } from './parsers/trivy';

/** Every format, in detection order: formats with distinctive markers come before looser ones. */
export const FORMATS: readonly Format[] = [sarif, bandit, semgrep, gitleaks, trivy];

export function formatById(id: string): Format | undefined {
  return FORMATS.find((f) => f.id === id);
}
