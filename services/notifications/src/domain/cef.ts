import {
  BULWARK_VERSION,
  ISSUE_EVENTS,
  NOTIFIER_TEST_EVENT,
  SCAN_EVENTS,
  WEBHOOK_PAYLOAD_VERSION,
} from '@bulwark/contracts';
import type { WebhookBody } from './webhook-body';

// An event as one ArcSight Common Event Format (CEF) line, for SIEMs that take CEF over HTTP:
// CEF:0|Bulwark|Bulwark|<version>|<event type>|<name>|<severity>|<extension>.

/** Header fields escape the backslash and the pipe; a line break would end the record, so it becomes a space. */
export const cefHeader = (v: string) =>
  v
    .replace(/\\/g, '\\\\')
    .replace(/\|/g, '\\|')
    .replace(/\r\n|[\r\n]/g, ' ');

/** Extension values escape the backslash, the equals sign and line breaks (as \n and \r). */
export const cefValue = (v: string) =>
  v.replace(/\\/g, '\\\\').replace(/=/g, '\\=').replace(/\r/g, '\\r').replace(/\n/g, '\\n');

type Data = Record<string, unknown>;
const num = (v: unknown) => (typeof v === 'number' ? v : 0);

/** 0-10, by what the event asks of someone: a failed gate or new issues more than a completed scan. */
function severityOf(type: string, data: Data): number {
  switch (type) {
    case ISSUE_EVENTS.qualityGateEvaluated:
      return (data.verdict as Data | undefined)?.status === 'failed' ? 8 : 3;
    case ISSUE_EVENTS.issuesIngested:
      return num(data.created) + num(data.reopened) > 0 ? 6 : 3;
    case SCAN_EVENTS.scanFailed:
      return 5;
    case ISSUE_EVENTS.issueSlaBreached:
      return 7;
    case NOTIFIER_TEST_EVENT:
      return 0;
    default:
      return 3;
  }
}

/**
 * The event's CEF line: rt (occurrence, epoch ms), externalId (event id), msg (English message),
 * cs1 project code, cs2 the body layout's version, cs3 the event's data as JSON; each csN with its csNLabel.
 */
export function cefLine(body: WebhookBody): string {
  const header = [
    'CEF:0',
    'Bulwark',
    'Bulwark',
    BULWARK_VERSION,
    body.type,
    body.message,
    String(severityOf(body.type, body.data)),
  ].map((h, i) => (i === 0 ? h : cefHeader(h)));
  const extension: [string, string][] = [
    ['rt', String(Date.parse(body.occurred_at))],
    ['externalId', body.id],
    ['msg', body.message],
    ['cs1Label', 'project_code'],
    ['cs1', body.project_code ?? ''],
    ['cs2Label', 'payload_version'],
    ['cs2', String(WEBHOOK_PAYLOAD_VERSION)],
    ['cs3Label', 'data'],
    ['cs3', JSON.stringify(body.data)],
  ];
  return `${header.join('|')}|${extension.map(([k, v]) => `${k}=${cefValue(v)}`).join(' ')}`;
}
