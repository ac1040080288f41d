import { SeverityBadge } from '../../components';
import { formatDate, useI18n } from '../../i18n';
import { Link } from '../../router';
import { statusName, useSession } from '../../session';
import type { Issue } from '../../types';
import { ExploitCell, SlaCell } from '../intel/IntelBadges';
import { SortHeader } from './SortHeader';

/** The list's table: a row per issue with its risk, exploitation and SLA, the sortable columns' headers sorting it. */
export function IssueTable({
  items,
  search,
  fixFirst,
  label,
  selected,
  onSelect,
}: {
  items: Issue[];
  search: URLSearchParams;
  fixFirst: boolean;
  label: string;
  selected: Set<string>;
  onSelect: (next: Set<string>) => void;
}) {
  const { t, lang } = useI18n();
  const { statuses } = useSession();
  const allChecked = items.length > 0 && items.every((i) => selected.has(i.id));
  const sortable = { search, fixFirst };
  return (
    <div className="scroll-box" role="region" aria-label={label} tabIndex={0}>
      <table className="grid">
        <thead>
          <tr>
            <th scope="col">
              <input
                type="checkbox"
                aria-label={t('selectAll')}
                checked={allChecked}
                onChange={() => onSelect(allChecked ? new Set() : new Set(items.map((i) => i.id)))}
              />
            </th>
            <SortHeader {...sortable} column="severity" label={t('severity')} first="desc" />
            <SortHeader {...sortable} column="risk_score" label={t('risk')} first="desc" />
            <th scope="col">{t('title')}</th>
            <th scope="col">{t('exploitation')}</th>
            <SortHeader {...sortable} column="sla_due_at" label={t('sla')} first="asc" />
            <SortHeader {...sortable} column="status" label={t('status')} first="asc" />
            <th scope="col">{t('project')}</th>
            <th scope="col">{t('tool')}</th>
            <th scope="col">{t('location')}</th>
            <SortHeader {...sortable} column="first_detected_at" label={t('detected')} first="desc" />
          </tr>
        </thead>
        <tbody>
          {items.map((issue) => (
            <tr key={issue.id}>
              <td>
                <input
                  type="checkbox"
                  aria-label={t('select', issue.title)}
                  checked={selected.has(issue.id)}
                  onChange={() => {
                    const next = new Set(selected);
                    if (next.has(issue.id)) next.delete(issue.id);
                    else next.add(issue.id);
                    onSelect(next);
                  }}
                />
              </td>
              <td>
                <SeverityBadge severity={issue.severity} />
              </td>
              <td className="number risk-score">{issue.risk_score}</td>
              <td>
                <Link to={`/issues/${issue.id}`}>{issue.title}</Link>
              </td>
              <td>
                <ExploitCell issue={issue} />
              </td>
              <td>
                <SlaCell issue={issue} />
              </td>
              <td>{statusName(statuses, issue.status_id, lang)}</td>
              <td>{issue.project_code}</td>
              <td>{issue.scanner}</td>
              <td className="mono">
                {issue.file_path
                  ? `${issue.file_path}${issue.start_line ? `:${issue.start_line}` : ''}`
                  : issue.lib_name
                    ? `${issue.lib_name} ${issue.lib_version ?? ''}`
                    : '—'}
              </td>
              <td>{formatDate(lang, issue.first_detected_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
