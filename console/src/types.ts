// API shapes, inferred from the route table's schemas: the console never restates them. Type
// imports only, so none of the server code reaches the bundle.
import type { z } from 'zod';
import type {
  changeResult,
  checkView,
  issueCountGroups,
  issueHistoryEntry,
  issueList,
  issueView,
  ISSUE_SEVERITIES,
  ISSUE_SORTS,
  layerView,
  loginBody,
  meResponse,
  passwordChangeBody,
  projectCreateBody,
  projectView,
  reportView,
  REPORT_PERIODS,
  REPORT_TYPES,
  scanResultView,
  sessionResponse,
  statusView,
  errorBody,
  layerCreateBody,
  checkHistory,
  checkCreateBody,
  sourceView,
  toolView,
  reportFormats,
  sbomView,
  dependencyView,
  savedIssueView,
  dryRunResponse,
  DRY_RUN_KINDS,
} from '@bulwark/contracts';
import type {
  conditionBody,
  conditionView,
  errorLogFilters,
  errorView,
  eventView,
  gateView,
  notifierBody,
  notifierTestResult,
  notifierView,
  policyBody,
  policyView,
  scanResultComparison,
  securityRuleBody,
  securityRuleView,
  WEBHOOK_PAYLOAD_FORMATS,
} from '@bulwark/contracts';
import type {
  analysisView,
  assigneeView,
  riskAcceptanceView,
  RISK_ACCEPTANCE_STATES,
  TICKET_GROUPINGS,
  ticketResult,
  trackerView,
} from '@bulwark/contracts';

export type Issue = z.infer<typeof issueView>;
export type IssueList = z.infer<typeof issueList>;
export type IssueCountGroups = z.infer<typeof issueCountGroups>;
export type IssueStatus = z.infer<typeof statusView>;
export type IssueHistoryEntry = z.infer<typeof issueHistoryEntry>;
export type SavedIssueView = z.infer<typeof savedIssueView>;
export type ChangeResult = z.infer<typeof changeResult>;
export type Severity = (typeof ISSUE_SEVERITIES)[number];
export type IssueSort = (typeof ISSUE_SORTS)[number];
export type DryRunResult = z.infer<typeof dryRunResponse>;
export type DryRunKind = (typeof DRY_RUN_KINDS)[number];
export type LoginRequest = z.input<typeof loginBody>;
export type Session = z.infer<typeof sessionResponse>;
export type Me = z.infer<typeof meResponse>;
export type PasswordChange = z.infer<typeof passwordChangeBody>;
export type Project = z.infer<typeof projectView>;
export type ProjectCreate = z.input<typeof projectCreateBody>;
export type Layer = z.infer<typeof layerView>;
export type LayerCreate = z.input<typeof layerCreateBody>;
export type Check = z.infer<typeof checkView>;
export type CheckCreate = z.input<typeof checkCreateBody>;
export type Source = z.infer<typeof sourceView>;
export type Tool = z.infer<typeof toolView>;
export type CheckHistory = z.infer<typeof checkHistory>;
export type ScanResult = z.infer<typeof scanResultView>;
export type Sbom = z.infer<typeof sbomView>;
export type Dependency = z.infer<typeof dependencyView>;
export type ReportFormats = z.infer<typeof reportFormats>;
export type Report = z.infer<typeof reportView>;
export type ReportPeriod = (typeof REPORT_PERIODS)[number];
export type ReportType = (typeof REPORT_TYPES)[number];
export type ErrorBody = z.infer<typeof errorBody>;
export type QualityGate = z.infer<typeof gateView>;
export type GateCondition = z.infer<typeof conditionView>;
export type ConditionBody = z.input<typeof conditionBody>;
export type { GateConditionType as ConditionType, GateOperator, GateAction } from '@bulwark/contracts/quality-gates';
export type SecurityRule = z.infer<typeof securityRuleView>;
export type SecurityRuleBody = z.input<typeof securityRuleBody>;
export type Policy = z.infer<typeof policyView>;
export type PolicyBody = z.input<typeof policyBody>;
export type Notifier = z.infer<typeof notifierView>;
export type NotifierBody = z.input<typeof notifierBody>;
export type NotifierTestResult = z.infer<typeof notifierTestResult>;
export type PayloadFormat = (typeof WEBHOOK_PAYLOAD_FORMATS)[number];
export type SecurityEvent = z.infer<typeof eventView>;
export type ScanComparison = z.infer<typeof scanResultComparison>;
export type ErrorLogEntry = z.infer<typeof errorView>;
export type ErrorLogFilters = z.infer<typeof errorLogFilters>;
export type Assignee = z.infer<typeof assigneeView>;
export type Tracker = z.infer<typeof trackerView>;
export type TicketResult = z.infer<typeof ticketResult>;
export type TicketGrouping = (typeof TICKET_GROUPINGS)[number];
export type IssueAnalysis = z.infer<typeof analysisView>;
export type RiskAcceptance = z.infer<typeof riskAcceptanceView>;
export type RiskAcceptanceState = (typeof RISK_ACCEPTANCE_STATES)[number];
export type { VexJustification, VexResponse, VexState } from '@bulwark/contracts/vex';
export interface IssueComment {
  id: string;
  author: string;
  message: string;
  created_at: string;
}
export interface Page<T> {
  items: T[];
  total: number;
  page: number;
  limit: number;
}

// The administration pages' shapes.
import type {
  bulkResult,
  groupCreateBody,
  groupView,
  ldapSettingsBody,
  ldapSettingsView,
  ldapTestResult,
  roleCreateBody,
  roleUpdateBody,
  roleView,
  ssoSettingsBody,
  ssoSettingsView,
  tokenBody,
  tokenCreated,
  tokenView,
  userCreateBody,
  userUpdateBody,
  userView,
} from '@bulwark/contracts';

export type User = z.infer<typeof userView>;
export type UserCreate = z.input<typeof userCreateBody>;
export type UserUpdate = z.input<typeof userUpdateBody>;
export type Role = z.infer<typeof roleView>;
export type RoleCreate = z.input<typeof roleCreateBody>;
export type RoleUpdate = z.input<typeof roleUpdateBody>;
export type Token = z.infer<typeof tokenView>;
export type TokenCreate = z.input<typeof tokenBody>;
export type TokenCreated = z.infer<typeof tokenCreated>;
export type Group = z.infer<typeof groupView>;
export type GroupCreate = z.input<typeof groupCreateBody>;
export type LdapSettings = z.infer<typeof ldapSettingsView>;
export type LdapSettingsUpdate = z.input<typeof ldapSettingsBody>;
export type LdapTestResult = z.infer<typeof ldapTestResult>;
export type SsoSettings = z.infer<typeof ssoSettingsView>;
export type SsoSettingsUpdate = z.input<typeof ssoSettingsBody>;
export type BulkResult = z.infer<typeof bulkResult>;
/** GET /api/v1/permissions: the catalogue of permission keys and letters (its schema is not exported by name). */
export interface PermissionCatalogue {
  keys: { key: string; description: string }[];
  letters: Record<string, string>;
}
