import '../intel/intel-messages';
import '../intel/intel.css';
import { SeverityBadge } from '../../components';
import { useI18n } from '../../i18n';
import { Link } from '../../router';
import type { DryRunKind, DryRunResult, Severity } from '../../types';
import { GateVerdict, SEVERITIES } from '../Dashboard';

/** The kinds in the order a reader weighs them: what the upload adds, changes, then leaves. */
const KINDS = ['new', 'fixed', 'reopened', 'suppressed', 'duplicate', 'unchanged'] as const satisfies DryRunKind[];
/** The examples shown of each kind: enough to see why, few enough to read (the answer has up to 100). */
const SHOWN = 5;

type Example = DryRunResult['examples'][DryRunKind][number];
type Reason = Example['reason'];
type Match = Extract<Reason, { kind: 'unchanged' }>['match'];
type Translate = ReturnType<typeof useI18n>['t'];
const isSeverity = (s: string): s is Severity => (SEVERITIES as readonly string[]).includes(s);

/** Why an issue would be of its kind, in the reader's language. */
function whyText(r: Reason, t: Translate): string {
  const matched = (m: Match) =>
    'fields' in m ? t('drMatched', m.dedup_rule ?? t('hr_default_rule'), m.fields.join(', ')) : t('drSameFindings');
  switch (r.kind) {
    case 'new':
      return t('why_new', 'fields' in r.match ? r.match.fields.join(', ') : '—');
    case 'unchanged':
      return t('why_unchanged', matched(r.match));
    case 'duplicate':
      return t('why_duplicate', matched(r.match));
    case 'fixed':
      return t('why_fixed');
    case 'reopened':
      return t('why_reopened', matched(r.match));
    case 'report_suppression':
      return t('why_report_suppression', r.state);
    case 'security_rule':
      return t('why_security_rule', r.rule_name);
  }
}

/** What an upload would do (POST /check/{id}/results?dry_run=true): counts of each kind, the gate verdict and the first examples with why. */
export function DryRunOutcome({ result, id }: { result: DryRunResult; id: string }) {
  const { t } = useI18n();
  return (
    <div className="dry-run" role="status" aria-labelledby={`${id}-title`}>
      <h4 id={`${id}-title`}>{t('dryRunTitle')}</h4>
      <p>{t('dryRunWritten', result.findings)}</p>
      <ul className="dry-run-counts">
        {KINDS.map((k) => (
          <li key={k} data-kind={k}>
            <strong>{result.counts[k]}</strong> {t(`dr_${k}`)}
          </li>
        ))}
      </ul>
      <p>
        {t('dryRunGate')}: <GateVerdict scan={result} />
      </p>
      {KINDS.filter((k) => result.examples[k].length > 0).map((k) => (
        <section key={k} className="dry-run-kind" aria-labelledby={`${id}-${k}`} data-kind={k}>
          <h5 id={`${id}-${k}`}>
            {t(`dr_${k}`)}: {t('dryRunExamples')}
          </h5>
          <ul>
            {result.examples[k].slice(0, SHOWN).map((e, n) => (
              <li key={`${e.fingerprint}#${n}`}>
                {isSeverity(e.severity) && <SeverityBadge severity={e.severity} />}{' '}
                {e.issue_id ? <Link to={`/issues/${e.issue_id}`}>{e.title}</Link> : e.title}
                <div className="muted">{whyText(e.reason, t)}</div>
              </li>
            ))}
          </ul>
        </section>
      ))}
    </div>
  );
}
