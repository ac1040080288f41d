import type { PermissionLetter } from '@bulwark/platform';

export interface PermissionKey {
  key: string;
  description: string;
}

export const PERMISSION_LETTERS: Record<PermissionLetter, string> = {
  r: 'read: list and get',
  w: 'write: create and update',
  x: 'execute: run, stop, test, generate',
  d: 'delete',
};

/**
 * The permission catalogue. The three keys seen in the API guide come first; then one key per
 * resource family of the guide. A role maps keys to letters (r, w, x, d).
 */
export const PERMISSION_KEYS: PermissionKey[] = [
  { key: 'settings.authentication', description: 'Login settings: LDAP and single sign-on' },
  { key: 'administration.roles', description: 'Roles and their permissions' },
  { key: 'administration.users', description: 'Users, their roles, and other users\u2019 API tokens' },
  { key: 'administration.errors_log', description: 'The error log' },
  { key: 'administration.license', description: 'The license' },
  { key: 'administration.groups', description: 'User groups: their members, roles and the projects they cover' },
  { key: 'catalog.sources', description: 'Scan sources and their connection tests' },
  { key: 'catalog.tools', description: 'Security tools and their cleanup' },
  { key: 'catalog.projects', description: 'Projects, custom fields, archiving' },
  { key: 'catalog.layers', description: 'Layers (pipelines) of projects' },
  { key: 'scanning.checks', description: 'Security checks and check groups; x runs and stops them' },
  { key: 'scanning.scan_results', description: 'Scan results, uploads, statistics and comparisons' },
  { key: 'scanning.dependencies', description: 'SBOMs and dependencies' },
  { key: 'issues.issues', description: 'Issues, their statuses, comments and history' },
  { key: 'issues.statuses', description: 'Issue statuses and transitions' },
  { key: 'issues.deduplicate_rules', description: 'Deduplication rules' },
  { key: 'issues.security_rules', description: 'Security rules that suppress issues' },
  { key: 'issues.quality_gates', description: 'Quality gates, conditions and their links to layers' },
  { key: 'issues.policies', description: 'Policies' },
  { key: 'issues.sla_policies', description: 'SLA policies' },
  { key: 'reporting.reports', description: 'Reports; x generates them' },
  { key: 'notifications.notifiers', description: 'Webhook notifiers; x tests them' },
  { key: 'notifications.events', description: 'Security events and event templates' },
  { key: 'integrations.trackers', description: 'Task tracker integrations' },
  {
    key: 'settings.intel',
    description: 'Exploit intelligence feeds (EPSS, KEV): settings, status; x fetches or imports them',
  },
  { key: 'settings.assistants', description: 'AI assistants (MCP): w enables or disables the write tools' },
];

/** The built-in role that holds every permission on every project. */
export const ADMIN_ROLE = 'admin';

export const ALL_LETTERS: PermissionLetter[] = ['r', 'w', 'x', 'd'];

export function isPermissionKey(key: string): boolean {
  return PERMISSION_KEYS.some((k) => k.key === key);
}
