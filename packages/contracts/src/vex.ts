// The CycloneDX 1.6 VEX vocabulary (bom-1.6.schema.json, vulnerability.analysis): the one definition
// the analysis of an issue, its API, the VEX export and the console share. It imports nothing, so the
// console's bundle takes it from source (console/vite.config.mts) without the rest of the contracts.
// Listed in the order a person reads them in the console.
export const VEX_STATES = [
  'in_triage',
  'exploitable',
  'not_affected',
  'false_positive',
  'resolved',
  'resolved_with_pedigree',
] as const;
export const VEX_JUSTIFICATIONS = [
  'code_not_present',
  'code_not_reachable',
  'requires_configuration',
  'requires_dependency',
  'requires_environment',
  'protected_by_compiler',
  'protected_at_runtime',
  'protected_at_perimeter',
  'protected_by_mitigating_control',
] as const;
export const VEX_RESPONSES = ['can_not_fix', 'will_not_fix', 'update', 'rollback', 'workaround_available'] as const;
export type VexState = (typeof VEX_STATES)[number];
export type VexJustification = (typeof VEX_JUSTIFICATIONS)[number];
export type VexResponse = (typeof VEX_RESPONSES)[number];
