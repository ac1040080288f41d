export * from './zod';
export * from './common';
export * from './permissions';
export * from './events';
export * from './grpc-json';
export * from './route-table';
export * from './openapi';
// Each service's request and response schemas live in schemas/, its route rows in routes/. The package
// exports the schemas that handlers, clients and the console read; the rest only build the route rows.
export {
  loginBody,
  loginResponse,
  tokenBody,
  tokenView,
  tokenCreated,
  roleCreateBody,
  roleUpdateBody,
  roleView,
  userCreateBody,
  userUpdateBody,
  passwordChangeBody,
  userView,
  ldapSettingsBody,
  ldapSettingsView,
  ldapTestBody,
  ldapTestResult,
  ssoSettingsBody,
  ssoSettingsView,
  ADMIN_GROUP_PROBLEM,
  PASSWORD_LEAST_LENGTH,
  groupCreateBody,
  groupUpdateBody,
  groupView,
  meResponse,
} from './schemas/identity';
export * from './routes/identity';
export * from './routes/license';
export * from './license';
export * from './version';
export {
  PROJECT_CODE,
  projectCode,
  ACCESS_TYPES,
  sourceSettings,
  sourceCreateBody,
  sourceUpdateBody,
  sourceView,
  sourceTestBody,
  sourceTestResult,
  sourceTypeView,
  toolCreateBody,
  toolUpdateBody,
  toolView,
  toolTypeView,
  toolCleanupResult,
  FIELD_TYPES,
  fieldCreateBody,
  fieldUpdateBody,
  fieldView,
  projectCreateBody,
  PROJECT_CRITICALITIES,
  type ProjectCriticality,
  projectUpdateBody,
  projectView,
  layerCreateBody,
  layerUpdateBody,
  layerInstantiateBody,
  layerView,
  DECORATION_PLATFORMS,
  type DecorationPlatformName,
  REVIEW_MIN_SEVERITIES,
  type ReviewMinSeverity,
  type SourceDecorationBody,
} from './schemas/catalog';
export * from './routes/catalog';
export * from './scanner-args';
export * from './webhook-secret';
export * from './webhooks';
export * from './setting-specs';
export * from './tool-types';
export * from './source-types';
export {
  UPLOAD_MAX_BYTES,
  tagInfo,
  checkCreateBody,
  groupedCheck,
  checkUpdateBody,
  scanStates,
  qualityGateVerdictView,
  scanResultView,
  checkView,
  checkHistory,
  scanResultComparison,
  reportFormats,
  comparisonBody,
  sbomView,
  dependencyView,
  type QualityGateVerdict,
} from './schemas/scanning';
export { scanningRoutes } from './routes/scanning';
export type { GateConditionType, GateOperator } from './quality-gates';
export {
  ISSUE_SEVERITIES,
  ISSUE_COUNT_GROUPS,
  ISSUE_SORTS,
  GATE_CONDITION_TYPES,
  GATE_OPERATORS,
  GATE_ACTIONS,
  DEDUP_FIELDS,
  DEDUP_SCOPES,
  issueFilterQuery,
  issueView,
  issueList,
  issueCountGroups,
  statusView,
  transitionView,
  securityRuleBody,
  securityRuleView,
  conditionBody,
  conditionView,
  gateView,
  policyBody,
  policyView,
  changeResult,
  issueHistoryEntry,
  type IssueFilterParams,
} from './schemas/issues';
export * from './routes/issues';
export { REPORT_TYPES, REPORT_PERIODS, REPORT_FORMATS, REPORT_STATES, reportView } from './schemas/reporting';
export * from './routes/reporting';
export {
  WEBHOOK_NOTIFIER_TYPE,
  NOTIFIABLE_EVENTS,
  notifierBody,
  notifierView,
  notifierTestResult,
  eventView,
  errorView,
  errorLogFilters,
} from './schemas/notifications';
export * from './routes/notifications';
export {
  TRACKER_TYPES,
  TICKET_GROUPINGS,
  TEMPLATE_PLACEHOLDERS,
  trackerBody,
  trackerUpdateBody,
  trackerView,
  ticketView,
  ticketResult,
  type TrackerType,
  type TrackerCredentials,
  type TrackerBody,
} from './schemas/trackers';
export * from './routes/trackers';
export * from './schemas/intel';
export * from './schemas/dry-run';
export * from './routes/intel';
export * from './schemas/sla';
export * from './routes/sla';
export {
  VEX_STATES,
  VEX_JUSTIFICATIONS,
  VEX_RESPONSES,
  ASSIGNEE_TYPES,
  RISK_ACCEPTANCE_STATES,
  TRIAGE_TEXT_MAX,
  assigneeView,
  analysisView,
  riskAcceptanceView,
  type VexState,
  type VexJustification,
  type VexResponse,
  type RiskAcceptanceState,
} from './schemas/triage';
export * from './routes/triage';
export { ISSUE_VIEW_PARAMS, ISSUE_VIEWS_PER_USER, issueViewBody, savedIssueView } from './schemas/issue-views';
export * from './routes/issue-views';
export * from './schemas/assistants';
export * from './routes/assistants';
export {
  SESSION_COOKIE,
  CSRF_COOKIE,
  CSRF_HEADER,
  sessionResponse,
  SSO_BROWSER_COOKIE,
  signedOutResponse,
} from './schemas/gateway';
export * from './routes/gateway';
