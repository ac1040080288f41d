import {
  EventPayload,
  IDENTITY_EVENTS,
  ISSUE_EVENTS,
  NOTIFIABLE_EVENTS,
  REPORT_EVENTS,
  SCAN_EVENTS,
} from '@bulwark/contracts';

type NotifiableEvent = (typeof NOTIFIABLE_EVENTS)[number];

/** An event's data as the events log keeps it. */
type Payload = Record<string, unknown>;

interface EventKind<P extends object = Payload> {
  description: string;
  example: P;
  /** The event's message, in English and in Russian (the events log searches both). */
  message(p: P): [string, string];
}

const n = (v: unknown) => Number(v ?? 0);

/** What each notifiable event says, and an example of its data: each kind reads its type's payload schema. */
const KINDS: { [T in NotifiableEvent]: EventKind<EventPayload<T>> } = {
  [SCAN_EVENTS.scanCompleted]: {
    description: 'A scan or an upload completed; its findings are being turned into issues',
    example: {
      scan_result_id: '0d6c…',
      check_id: '5a1e…',
      layer_id: '77b0…',
      project_code: 'shop',
      findings_count: 12,
      tool_id: '91c3…',
    },
    message: (p) => [
      `Scan ${p.scan_result_id} of project ${p.project_code} completed with ${n(p.findings_count)} findings`,
      `Сканирование ${p.scan_result_id} проекта ${p.project_code} завершено, находок: ${n(p.findings_count)}`,
    ],
  },
  [SCAN_EVENTS.scanFailed]: {
    description: 'A scan failed (scanner error, time limit, lost worker)',
    example: {
      scan_result_id: '0d6c…',
      check_id: '5a1e…',
      layer_id: '77b0…',
      project_code: 'shop',
      error: 'semgrep exited with code 2',
    },
    message: (p) => [
      `Scan ${p.scan_result_id} of project ${p.project_code} failed: ${p.error ?? p.reason ?? 'unknown error'}`,
      `Сканирование ${p.scan_result_id} проекта ${p.project_code} не удалось: ${p.error ?? p.reason ?? 'неизвестная ошибка'}`,
    ],
  },
  [ISSUE_EVENTS.issuesIngested]: {
    description: 'A completed scan\u2019s findings became issues: how many are new, seen again, reopened and fixed',
    example: {
      scan_result_id: '0d6c…',
      check_id: '5a1e…',
      layer_id: '77b0…',
      project_code: 'shop',
      findings: 12,
      created: 3,
      updated: 9,
      reopened: 1,
      fixed: 2,
    },
    message: (p) => [
      `Project ${p.project_code}: ${n(p.created)} new, ${n(p.reopened)} reopened and ${n(p.fixed)} fixed issues after scan ${p.scan_result_id}`,
      `Проект ${p.project_code}: новых уязвимостей ${n(p.created)}, переоткрытых ${n(p.reopened)}, исправленных ${n(p.fixed)} после сканирования ${p.scan_result_id}`,
    ],
  },
  [ISSUE_EVENTS.qualityGateEvaluated]: {
    description: 'The quality gates of a layer were evaluated after a scan: passed or failed, with each condition',
    example: {
      scan_result_id: '0d6c…',
      layer_id: '77b0…',
      project_code: 'shop',
      verdict: {
        status: 'failed',
        locked: true,
        conditions: [],
        scan_result_id: '0d6c…',
        layer_id: '77b0…',
        evaluated_at: '2026-01-01T00:00:00.000Z',
      },
    },
    message: (p) => [
      `Quality gate ${p.verdict?.status ?? 'evaluated'} for layer ${p.layer_id} of project ${p.project_code} (scan ${p.scan_result_id})`,
      `Критерий качества ${p.verdict?.status === 'passed' ? 'пройден' : p.verdict?.status === 'failed' ? 'не пройден' : 'проверен'} для слоя ${p.layer_id} проекта ${p.project_code} (сканирование ${p.scan_result_id})`,
    ],
  },
  [ISSUE_EVENTS.issueStatusChanged]: {
    description: 'Someone changed an issue\u2019s status',
    example: {
      issue_id: 'c2f0…',
      project_code: 'shop',
      from_status_id: 1,
      to_status_id: 5,
      by: 'alice',
      comment: 'test code',
    },
    message: (p) => [
      `Issue ${p.issue_id} of project ${p.project_code}: status ${p.from_status_id} → ${p.to_status_id} by ${p.by}`,
      `Уязвимость ${p.issue_id} проекта ${p.project_code}: статус ${p.from_status_id} → ${p.to_status_id}, изменил ${p.by}`,
    ],
  },
  [ISSUE_EVENTS.issueSlaBreached]: {
    description: 'An open issue passed its SLA due date (sent once per issue and breach)',
    example: {
      issue_id: 'c2f0…',
      project_code: 'shop',
      title: 'SQL injection in /search',
      severity: 'critical',
      known_exploited: false,
      sla_due_at: '2026-01-15T09:30:00.000Z',
    },
    message: (p) => [
      `Issue ${p.issue_id} of project ${p.project_code} (${p.severity}) passed its SLA due date ${p.sla_due_at}`,
      `Уязвимость ${p.issue_id} проекта ${p.project_code} (${p.severity}) не исправлена в срок SLA ${p.sla_due_at}`,
    ],
  },
  [REPORT_EVENTS.reportReady]: {
    description: 'A report is generated and can be downloaded',
    example: { id: '4b9a…', name: 'Weekly summary', type: 'summary', author: 'alice', project_codes: ['shop'] },
    message: (p) => [`Report "${p.name}" (${p.id}) is ready`, `Отчёт «${p.name}» (${p.id}) готов`],
  },
  [REPORT_EVENTS.reportFailed]: {
    description: 'A report could not be generated',
    example: {
      id: '4b9a…',
      name: 'Weekly summary',
      type: 'summary',
      author: 'alice',
      error: 'issues service unavailable',
    },
    message: (p) => [
      `Report "${p.name}" (${p.id}) failed: ${p.error}`,
      `Отчёт «${p.name}» (${p.id}) не сформирован: ${p.error}`,
    ],
  },
  [IDENTITY_EVENTS.licenseExpiring]: {
    description:
      'The installed license expires soon (sent 30, 14, 7 and 1 days ahead by default); after expiry the community limits apply',
    example: {
      license_id: 'lic-2026-001',
      licensee: 'Example Bank',
      edition: 'enterprise',
      expires_at: '2026-12-31T23:59:59Z',
      days_left: 14,
    },
    message: (p) => [
      `The ${p.edition} license of ${p.licensee} expires in ${n(p.days_left)} day(s), at ${p.expires_at}; install a new one before then`,
      `Лицензия ${p.edition} (${p.licensee}) истекает через ${n(p.days_left)} дн., ${p.expires_at}; установите новую до этого срока`,
    ],
  },
  [IDENTITY_EVENTS.licenseExpired]: {
    description: 'The installed license has expired: the community limits apply until a new one is installed',
    example: {
      license_id: 'lic-2026-001',
      licensee: 'Example Bank',
      edition: 'enterprise',
      expires_at: '2026-12-31T23:59:59Z',
    },
    message: (p) => [
      `The ${p.edition} license of ${p.licensee} expired at ${p.expires_at}; the community limits apply until a new license is installed`,
      `Лицензия ${p.edition} (${p.licensee}) истекла ${p.expires_at}; до установки новой действуют ограничения бесплатной редакции`,
    ],
  },
};

/**
 * The kinds by event type, for lookup by the type of an event off the bus: onEvents has parsed its
 * payload with its type's schema, the one its kind reads.
 */
export const EVENT_KINDS: Record<string, EventKind> = KINDS;

/** The project an event concerns: its project_code, or a report's only project. */
export function projectOf(p: Payload): string | null {
  if (typeof p.project_code === 'string') return p.project_code;
  return Array.isArray(p.project_codes) && p.project_codes.length === 1 ? String(p.project_codes[0]) : null;
}
