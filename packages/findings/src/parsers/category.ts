import { ToolCategory } from '../model';

const BY_NAME: [RegExp, ToolCategory][] = [
  [/gitleaks|trufflehog|secret|detect-secrets|ggshield/i, 'secrets'],
  [/checkov|kics|tfsec|terrascan|kube-?score|kubesec|kube-?linter|cfn|hadolint/i, 'iac'],
  [/zap|nuclei|burp|nikto|wapiti|arachni|dast/i, 'dast'],
  [/grype|clair|anchore|container/i, 'container'],
  [/trivy|snyk|dependency|osv|npm|audit|retire|black ?duck|dependabot|owasp dc|sca/i, 'sca'],
];

/** A guess from the tool name for formats shared by many tools (SARIF, generic); SAST otherwise. */
export function categoryOfTool(name: string): ToolCategory {
  return BY_NAME.find(([re]) => re.test(name))?.[1] ?? 'sast';
}
