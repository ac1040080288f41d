import { FormEvent, useEffect, useState } from 'react';
import type { issueFilterQuery } from '@bulwark/contracts';
import { api, Query } from '../api';
import { ErrorNote, Field, Loading } from '../components';
import { useLoad } from '../hooks';
import { MessageKey, useI18n } from '../i18n';
import { navigate, useLocation } from '../router';
import { statusName, useSession } from '../session';
import { StatusChangeForm } from '../status-change';
import { AssigneeViews, BulkAssign } from './triage/BulkAssign';
import { BulkTicket } from './triage/BulkTicket';
import { PendingApprovals } from './triage/RiskAcceptancePanel';
import type { Issue, IssueList, IssueSort, IssueStatus, Severity } from '../types';
import { CLOSED_STATUS_IDS } from './Dashboard';
import { IdFilter, IdNames, useIdNames } from './issue-filter-names';
import { DuplicatesRule } from './issue-list/DuplicatesRule';
import { ExportView } from './issue-list/ExportView';
import { Pager } from './issue-list/Pager';
import { SavedViews } from './issue-list/SavedViews';
import './issue-list/issue-list.css';
import { IssueTable } from './issue-list/IssueTable';
import { apiQuery, defaultSort, FIX_FIRST_PATH, rememberView, withParams } from './issue-list/view';

type FilterKey = keyof typeof issueFilterQuery;

/** The filters offered as chips: every filter and search parameter of GET /issues, with how its value is entered. */
const FILTERS: {
  key: FilterKey;
  label: MessageKey;
  input: 'severity' | 'status' | 'exploitability' | 'sla' | 'bool' | 'number' | 'date' | 'text' | IdFilter;
}[] = [
  { key: 'filter[project_code]', label: 'f_project_code', input: 'project' },
  { key: 'filter[severity]', label: 'f_severity', input: 'severity' },
  { key: 'filter[status]', label: 'f_status', input: 'status' },
  { key: 'filter[tool]', label: 'f_tool', input: 'text' },
  { key: 'filter[category]', label: 'f_category', input: 'text' },
  { key: 'filter[cve]', label: 'f_cve', input: 'text' },
  { key: 'filter[cwe]', label: 'f_cwe', input: 'number' },
  { key: 'filter[assignee]', label: 'f_assignee', input: 'text' },
  { key: 'filter[lib_name]', label: 'f_lib_name', input: 'text' },
  { key: 'filter[layer]', label: 'f_layer', input: 'layer' },
  { key: 'filter[check]', label: 'f_check', input: 'check' },
  { key: 'filter[scan]', label: 'f_scan', input: 'scan' },
  { key: 'filter[exploitability]', label: 'f_exploitability', input: 'exploitability' },
  { key: 'filter[cvss_min]', label: 'f_cvss_min', input: 'number' },
  { key: 'filter[cvss_max]', label: 'f_cvss_max', input: 'number' },
  { key: 'filter[epss_min]', label: 'f_epss_min', input: 'number' },
  { key: 'filter[risk_min]', label: 'f_risk_min', input: 'number' },
  { key: 'filter[sla_state]', label: 'f_sla_state', input: 'sla' },
  { key: 'filter[detected_at_start]', label: 'f_detected_at_start', input: 'date' },
  { key: 'filter[detected_at_end]', label: 'f_detected_at_end', input: 'date' },
  { key: 'filter_inversion', label: 'f_filter_inversion', input: 'bool' },
  { key: 'filter[comment_message]', label: 'f_comment_message', input: 'text' },
  { key: 'search[file_path]', label: 'f_search_file_path', input: 'text' },
  { key: 'search[rule_id]', label: 'f_search_rule_id', input: 'text' },
  { key: 'search[cve]', label: 'f_search_cve', input: 'text' },
  { key: 'search[lib_name]', label: 'f_search_lib_name', input: 'text' },
];
const FILTER_KEYS = new Set<string>(FILTERS.map((f) => f.key));
const ID_FILTERS = new Set<string>(['project', 'layer', 'check', 'scan'] satisfies IdFilter[]);
const idFilterOf = (key: string) => {
  const input = FILTERS.find((f) => f.key === key)?.input;
  return input && ID_FILTERS.has(input) ? (input as IdFilter) : undefined;
};
const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const satisfies readonly Severity[];
const SLA_STATES = ['on_track', 'due_soon', 'breached'] as const satisfies readonly NonNullable<Issue['sla_state']>[];
const SORTS: { value: `${'' | '-'}${IssueSort}`; label: MessageKey }[] = [
  { value: '-first_detected_at', label: 'sortNewest' },
  { value: 'first_detected_at', label: 'sortOldest' },
  { value: '-severity', label: 'sortSeverity' },
  { value: '-cvss', label: 'sortCvss' },
  { value: '-last_detected_at', label: 'sortLastSeen' },
  { value: 'status', label: 'sortStatus' },
  { value: '-risk_score', label: 'sortRisk' },
  { value: 'sla_due_at', label: 'sortSlaDue' },
];

/**
 * The view Fix first shows: the address's, with the riskiest first and the open statuses where it
 * names no sort or status filter (nor inverts its filters, which would make them the closed ones).
 * The list, the export and a saved view all take it, so each holds what the page shows.
 */
function fixFirstView(search: URLSearchParams, statuses: IssueStatus[]): URLSearchParams {
  const view = new URLSearchParams(search);
  if (!view.has('sort')) view.set('sort', defaultSort(true));
  if (!view.has('filter[status]') && view.get('filter_inversion') !== 'true')
    for (const s of statuses) if (!CLOSED_STATUS_IDS.has(s.id)) view.append('filter[status]', String(s.id));
  return view;
}

/** The first page asked at the start, alongside who is signed in, for the page to take when it shows. */
let early: { key: string; list: Promise<IssueList> } | undefined;

/** Asks for the view's first page before the page shows (the start calls it while it waits for the session). */
export function prefetchIssues(search: URLSearchParams): void {
  const query = apiQuery(search, FILTER_KEYS);
  const list = api<IssueList>('GET', '/issues', undefined, query);
  early = { key: JSON.stringify(query), list };
  // Refused (not signed in yet): nothing to hand over; a sign-in asks again.
  list.catch(() => {
    if (early?.list === list) early = undefined;
  });
}

/** The list of a view: the early answer once, when it is for this view, else a new request. */
function listOf(key: string, query: Query): Promise<IssueList> {
  if (early?.key !== key) return api<IssueList>('GET', '/issues', undefined, query);
  const { list } = early;
  early = undefined;
  return list;
}

/** The issue list, or with `fixFirst` the Fix first view: open issues, the riskiest first, with the same filters. */
export function IssuesPage({ fixFirst = false }: { fixFirst?: boolean }) {
  const { t, lang } = useI18n();
  const { statuses } = useSession();
  const { search } = useLocation();
  const view = fixFirst ? fixFirstView(search, statuses) : search;
  const query = apiQuery(view, FILTER_KEYS);
  const key = JSON.stringify(query);
  const list = useLoad(() => listOf(key, query), [key]);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  useEffect(() => setSelected(new Set()), [key]);
  useEffect(() => rememberView(search), [search]);

  const chips = [...search].filter(([k]) => FILTER_KEYS.has(k));
  // Id filters show names: of the chips' kinds, and of the kind the add-filter form is picking.
  const [picking, setPicking] = useState<IdFilter>();
  const idKinds = chips.flatMap(([k]) => idFilterOf(k) ?? []);
  const names = useIdNames(
    picking ? [...idKinds, picking] : idKinds,
    chips.filter(([k]) => k === 'filter[scan]').map(([, v]) => v),
    lang,
    (date) => t('scanOf', date),
  );
  const label = (k: string, v: string) => {
    const f = FILTERS.find((x) => x.key === k);
    const kind = idFilterOf(k);
    const value = kind
      ? (names[kind]?.get(v) ?? v)
      : f?.input === 'status'
        ? statusName(statuses, Number(v), lang)
        : f?.input === 'severity'
          ? t(`sev_${v as Severity}`)
          : f?.input === 'sla' && (SLA_STATES as readonly string[]).includes(v)
            ? t(`sla_${v as (typeof SLA_STATES)[number]}`)
            : v;
    return `${f ? t(f.label) : k}: ${value}`;
  };
  const items = list.data?.items ?? [];
  const nextCursor = list.data?.next_cursor;
  const title = fixFirst ? t('navFixFirst') : t('issues');
  const pager = (at: 'top' | 'bottom') =>
    list.data && (
      <Pager search={search} shown={items.length} total={list.data.total} nextCursor={nextCursor ?? null} at={at} />
    );

  return (
    <section aria-labelledby="issues-title">
      <h1 id="issues-title" tabIndex={-1}>
        {title}
      </h1>
      {fixFirst && <p className="hint">{t('fixFirstHint')}</p>}
      <div className="toolbar">
        <SearchBox initial={search.get('search[title]') ?? ''} />
        <Field id="sort" label={t('sort')}>
          <select
            id="sort"
            value={search.get('sort') ?? defaultSort(fixFirst)}
            onChange={(e) => navigate(withParams(search, (p) => p.set('sort', e.target.value)))}
          >
            {SORTS.map((s) => (
              <option key={s.value} value={s.value}>
                {t(s.label)}
              </option>
            ))}
          </select>
        </Field>
      </div>
      <AddFilter
        names={names}
        onPicking={setPicking}
        onAdd={(k, v) => navigate(withParams(search, (p) => p.append(k, v)))}
      />
      <AssigneeViews search={search} to={(v) => withParams(search, (p) => p.set('filter[assignee]', v))} />
      <PendingApprovals />
      {chips.length > 0 && (
        <ul className="chips" aria-label={t('filters')}>
          {chips.map(([k, v], i) => (
            <li key={`${k}=${v}#${i}`} className="chip">
              <span>{label(k, v)}</span>
              <button
                type="button"
                aria-label={t('removeFilter', label(k, v))}
                onClick={() =>
                  navigate(
                    withParams(search, (p) => {
                      const rest = p.getAll(k).filter((x) => x !== v);
                      p.delete(k);
                      for (const r of rest) p.append(k, r);
                    }),
                  )
                }
              >
                ×
              </button>
            </li>
          ))}
          <li>
            <button type="button" className="link" onClick={() => navigate(fixFirst ? FIX_FIRST_PATH : '/issues')}>
              {t('clearFilters')}
            </button>
          </li>
        </ul>
      )}
      <p className="hint">{t('copyLink')}</p>
      <DuplicatesRule search={search} />
      <ExportView search={view} filterKeys={FILTER_KEYS} />
      <SavedViews search={view} filterKeys={FILTER_KEYS} />
      {selected.size > 0 && (
        <StatusChangeForm
          ids={[...selected]}
          idPrefix="bulk"
          className="bulk card"
          heading={<strong>{t('selected', selected.size)}</strong>}
          outcome={(res) => {
            const changed = res.results.filter((r) => r.status === 'changed').length;
            return t('changed', changed, res.results.length - changed);
          }}
          onDone={() => list.reload()}
        />
      )}
      {selected.size > 0 && <BulkAssign ids={[...selected]} onDone={() => list.reload()} />}
      {selected.size > 0 && <BulkTicket ids={[...selected]} onDone={() => list.reload()} />}
      {list.error && <ErrorNote error={list.error} />}
      {list.loading && !list.data && <Loading />}
      {list.data && (
        <>
          {pager('top')}
          <IssueTable
            items={items}
            search={search}
            fixFirst={fixFirst}
            label={title}
            selected={selected}
            onSelect={setSelected}
          />
          {pager('bottom')}
        </>
      )}
    </section>
  );
}

function SearchBox({ initial }: { initial: string }) {
  const { t } = useI18n();
  const { search } = useLocation();
  const [value, setValue] = useState(initial);
  useEffect(() => setValue(initial), [initial]);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    navigate(
      withParams(search, (p) => (value.trim() ? p.set('search[title]', value.trim()) : p.delete('search[title]'))),
    );
  };
  return (
    <form role="search" onSubmit={submit} className="inline">
      <Field id="search" label={t('searchLabel')}>
        <input
          id="search"
          type="search"
          placeholder={t('search')}
          value={value}
          maxLength={255}
          onChange={(e) => setValue(e.target.value)}
        />
      </Field>
      <button type="submit">{t('searchLabel')}</button>
    </form>
  );
}

function AddFilter({
  names,
  onPicking,
  onAdd,
}: {
  names: IdNames;
  onPicking: (kind: IdFilter | undefined) => void;
  onAdd: (key: string, value: string) => void;
}) {
  const { t, lang } = useI18n();
  const { statuses } = useSession();
  const [key, setKey] = useState<FilterKey>('filter[severity]');
  const [value, setValue] = useState('');
  // The select offers FILTERS' keys only, so the fallback is never taken.
  const filter = FILTERS.find((f) => f.key === key) ?? FILTERS[0];
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const v =
      filter.input === 'bool'
        ? 'true'
        : filter.input === 'date' && value
          ? new Date(value).toISOString()
          : value.trim();
    if (!v) return;
    onAdd(key, v);
    setValue('');
  };
  const options = (values: [string, string][]) => (
    <select id="filter-value" required value={value} onChange={(e) => setValue(e.target.value)}>
      <option value="" />
      {values.map(([v, l]) => (
        <option key={v} value={v}>
          {l}
        </option>
      ))}
    </select>
  );
  return (
    <form className="inline add-filter" onSubmit={submit} aria-label={t('addFilter')}>
      <Field id="filter-key" label={t('filterField')}>
        <select
          id="filter-key"
          value={key}
          onChange={(e) => {
            setKey(e.target.value as FilterKey);
            setValue('');
            onPicking(idFilterOf(e.target.value));
          }}
        >
          {FILTERS.map((f) => (
            <option key={f.key} value={f.key}>
              {t(f.label)}
            </option>
          ))}
        </select>
      </Field>
      {filter.input !== 'bool' && (
        <Field id="filter-value" label={t('filterValue')}>
          {filter.input === 'severity' ? (
            options(SEVERITIES.map((s) => [s, t(`sev_${s}`)]))
          ) : filter.input === 'status' ? (
            options(statuses.map((s) => [String(s.id), lang === 'ru' ? s.name_ru : s.name_en]))
          ) : filter.input === 'project' || filter.input === 'layer' || filter.input === 'check' ? (
            options([...(names[filter.input] ?? [])])
          ) : filter.input === 'sla' ? (
            options(SLA_STATES.map((s) => [s, t(`sla_${s}`)]))
          ) : filter.input === 'exploitability' ? (
            options([
              ['known_exploited', 'KEV'],
              ['epss', 'EPSS'],
              ['none', '—'],
            ])
          ) : (
            <input
              id="filter-value"
              required
              value={value}
              onChange={(e) => setValue(e.target.value)}
              type={filter.input === 'number' ? 'number' : filter.input === 'date' ? 'date' : 'text'}
              step="any"
              maxLength={255}
            />
          )}
        </Field>
      )}
      <button type="submit">{t('add')}</button>
    </form>
  );
}
