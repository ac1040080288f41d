import { useEffect, useState } from 'react';
import { api } from '../api';
import { formatDate, MessageKey, useI18n } from '../i18n';
import { statusName, useSession } from '../session';
import type { IssueHistoryEntry, ScanResult } from '../types';
import { useIdNames } from './issue-filter-names';

/** The history's fields the console names; another field shows as the API names it. */
const FIELDS: Record<string, MessageKey> = {
  status: 'hf_status',
  assignee: 'hf_assignee',
  analysis: 'hf_analysis',
  duplicate_of: 'hf_duplicate_of',
  ticket: 'hf_ticket',
};

/** The comments the server writes itself, as patterns with their message; a person's comment stays as written. */
const COMMENTS: [RegExp, MessageKey][] = [
  [/^Not found by a complete scan of the check that found it$/, 'hc_not_found'],
  [/^Security rule (.+)$/s, 'hc_security_rule'],
  [/^Tracker deleted$/, 'hc_tracker_deleted'],
  [/^Ticket (\S+) is (.+)$/s, 'hc_ticket_state'],
  [/^Risk acceptance (\S+) expired$/, 'hc_risk_expired'],
  [/^Risk acceptance (\S+) until (\S+): (.*)$/s, 'hc_risk_until'],
];

type Reason = NonNullable<IssueHistoryEntry['reason']>;
type Match = Extract<Reason, { kind: 'reopened' }>['match'];
type Translate = ReturnType<typeof useI18n>['t'];

/** The scans a reason names: the one that made the change and, for an unchanged re-import, the one it matched as. */
const reasonScans = (r: Reason) =>
  r.kind === 'reopened' && 'same_findings_as_scan' in r.match
    ? [r.scan_id, r.match.same_findings_as_scan]
    : [r.scan_id];

/** Why an ingestion made the change, as one line in the reader's language, each scan by its date and check. */
function reasonText(r: Reason, t: Translate, scan: (id: string) => string): string {
  const byRule = (m: Extract<Match, { fields: string[] }>) => [
    m.dedup_rule ?? t('hr_default_rule'),
    m.fields.join(', '),
  ];
  switch (r.kind) {
    case 'fixed':
      return t('hr_fixed', scan(r.scan_id));
    case 'reopened':
      return 'fields' in r.match
        ? t('hr_reopened_rule', scan(r.scan_id), ...byRule(r.match))
        : t('hr_reopened_same', scan(r.scan_id), scan(r.match.same_findings_as_scan));
    case 'report_suppression':
      return r.match && 'fields' in r.match
        ? t('hr_suppression_rule', scan(r.scan_id), r.state, ...byRule(r.match))
        : t('hr_suppression', scan(r.scan_id), r.state);
    case 'security_rule':
      return t('hr_security_rule', r.rule_name, scan(r.scan_id));
  }
}

/** Who made the change, by kind: a scan by its date and check, a rule or tracker by name. */
const ACTORS: Record<string, MessageKey> = {
  user: 'actor_user',
  security_rule: 'actor_security_rule',
  tracker: 'actor_tracker',
  system: 'actor_system',
};

/** The scans among the actors and the reasons, each by its date and check id, once each. */
function useScans(entries: IssueHistoryEntry[]): Map<string, ScanResult> {
  const [scans, setScans] = useState(new Map<string, ScanResult>());
  const ids = [
    ...new Set(
      entries.flatMap((h) => [
        ...(h.actor_kind === 'scan' ? [h.actor] : []),
        ...(h.reason ? reasonScans(h.reason) : []),
      ]),
    ),
  ];
  const key = ids.join(',');
  useEffect(() => {
    for (const id of ids)
      api<ScanResult>('GET', `/scan-result/${encodeURIComponent(id)}`).then(
        (s) => setScans((m) => new Map(m).set(id, s)),
        () => undefined,
      );
  }, [key]); // `key` is `ids` as text: each scan is asked for once
  return scans;
}

/** An issue's history in the reader's language: status names, named fields, scans by date and check, the server's comments translated. */
export function IssueHistoryTable({ entries }: { entries: IssueHistoryEntry[] }) {
  const { t, lang } = useI18n();
  const { statuses } = useSession();
  const scans = useScans(entries);
  const checks = useIdNames(scans.size ? ['check'] : [], [], lang, (d) => d).check;
  const value = (h: IssueHistoryEntry, v: string | null) =>
    v === null ? '—' : h.field === 'status' && /^\d+$/.test(v) ? statusName(statuses, Number(v), lang) : v;
  const person = (h: IssueHistoryEntry) => {
    const name = ACTORS[h.actor_kind] ? t(ACTORS[h.actor_kind], h.actor) : h.actor;
    return h.via === 'mcp' ? t('actorViaMcp', name) : name;
  };
  /** A scan as its date and, once the checks are read, its check's name; never its id. */
  const scanWhen = (id: string) => {
    const scan = scans.get(id);
    if (!scan) return t('scanDateUnknown');
    const check = checks?.get(scan.check_id);
    const date = formatDate(lang, scan.created_at);
    return check ? `${date} (${check})` : date;
  };
  const actor = (h: IssueHistoryEntry) => {
    if (h.actor_kind !== 'scan') return person(h);
    return scans.has(h.actor) ? t('scanActor', scanWhen(h.actor)) : t('scanActorUnknown');
  };
  const comment = (c: string | null) => {
    if (!c) return '';
    for (const [pattern, key] of COMMENTS) {
      const m = pattern.exec(c);
      if (m) return t(key, ...m.slice(1));
    }
    return c;
  };
  return (
    <div className="scroll-box" role="region" aria-label={t('history')} tabIndex={0}>
      <table className="grid">
        <thead>
          <tr>
            <th scope="col">{t('when')}</th>
            <th scope="col">{t('actor')}</th>
            <th scope="col">{t('field')}</th>
            <th scope="col">{t('from')}</th>
            <th scope="col">{t('to')}</th>
            <th scope="col">{t('comment')}</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((h) => (
            <tr key={h.id}>
              <td>{formatDate(lang, h.at)}</td>
              <td>{actor(h)}</td>
              <td>{FIELDS[h.field] ? t(FIELDS[h.field]) : h.field}</td>
              <td>{value(h, h.old_value)}</td>
              <td>{value(h, h.new_value)}</td>
              <td>
                {comment(h.comment)}
                {h.reason && <div className="muted">{reasonText(h.reason, t, scanWhen)}</div>}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
