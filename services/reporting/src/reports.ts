import { randomUUID } from 'node:crypto';
import {
  AppError,
  CatalogClient,
  conflict,
  Db,
  invalid,
  IssuesClient,
  notFound,
  Principal,
  requestedProjects,
} from '@bulwark/platform';
import { REPORT_PERIODS, REPORT_TYPES } from '@bulwark/contracts';
import { collectSnapshot } from './generator';
import type { ReportSnapshot } from './domain/snapshot';
import { RenderedReport, renderReport, ReportFormat, reportFileType } from './render';
import { ReportRecord, reportStore } from './store/reports';

type ReportType = (typeof REPORT_TYPES)[number];
type ReportPeriod = (typeof REPORT_PERIODS)[number];

/** A rendered report and the name it is downloaded under. */
export interface ReportFile {
  name: string;
  file: RenderedReport;
}

/** The end of a custom range: a bare date covers that whole day. */
function rangeEnd(to: string): Date {
  return /^\d{4}-\d{2}-\d{2}$/.test(to) ? new Date(Date.parse(`${to}T00:00:00Z`) + 86_400_000 - 1) : new Date(to);
}

/**
 * Reports on behalf of a caller: a report covers only projects the caller may see, and a caller
 * limited to some projects lists, reads, renames and deletes only reports wholly within them (the
 * store's `withinProjects`), since a report's content is the issues of every project it covers.
 */
export class Reports {
  constructor(private readonly deps: { db: Db; issues: IssuesClient; catalog: CatalogClient; topIssues: number }) {}

  /**
   * The projects a report of `requested` covers for this caller; codes it may not see or that do not
   * exist are refused with `refusal` of them.
   */
  private async scope(
    principal: Principal,
    requested: string[],
    refusal: (codes: string[]) => AppError,
  ): Promise<{ allProjects: boolean; projectCodes: string[] }> {
    const { allProjects, projectCodes, outside } = requestedProjects(principal, requested);
    const exists = (code: string) =>
      this.deps.catalog.getProject({ code }).then(
        () => true,
        (err: unknown) => {
          if (err instanceof AppError && err.code === 'not_found') return false;
          throw err;
        },
      );
    // Codes asked for are checked against the catalog (a typo must not make an empty report).
    const visible = requested.length === 0 ? [] : projectCodes.filter((c) => !outside.includes(c));
    const found = await Promise.all(visible.map(exists));
    const problems = [...outside, ...visible.filter((_, i) => !found[i])];
    if (problems.length) throw refusal(problems);
    return { allProjects, projectCodes };
  }

  async create(
    principal: Principal,
    body: {
      name: string;
      type: ReportType;
      filter: { period: ReportPeriod; project_code: string[]; from?: string; to?: string };
    },
  ): Promise<ReportRecord> {
    // A body naming a project it may not see: 400 naming the field.
    const scope = await this.scope(principal, body.filter.project_code, (codes) =>
      invalid(`Unknown project ${codes.join(', ')}`, [
        { field: 'filter.project_code', problem: `has no project ${codes.join(', ')} that you can see` },
      ]),
    );
    const now = new Date();
    const { from, to } = body.filter;
    const custom = from !== undefined || to !== undefined;
    const end = to === undefined ? now : rangeEnd(to);
    if (custom && end > now)
      throw invalid('The range ends in the future', [{ field: 'filter.to', problem: 'must not be after now' }]);
    if (from !== undefined && new Date(from) > end)
      throw invalid('The range starts after it ends', [
        { field: 'filter.from', problem: 'must not be after to (default: now)' },
      ]);
    return reportStore.insert(this.deps.db, {
      id: randomUUID(),
      name: body.name,
      type: body.type,
      period: custom ? 'custom' : body.filter.period,
      projectCodes: scope.projectCodes,
      allProjects: scope.allProjects,
      rangeFrom: from === undefined ? null : new Date(from).toISOString(),
      rangeTo: custom ? end.toISOString() : null,
      author: principal.username,
      createdAt: now.toISOString(),
    });
  }

  async get(principal: Principal, id: string): Promise<ReportRecord> {
    const row = await reportStore.get(this.deps.db, id, principal.projects);
    if (!row) throw notFound(`Report ${id}`);
    return row;
  }

  list(principal: Principal, q: { page: number; limit: number; name?: string; state?: string; type?: string }) {
    return reportStore.list(this.deps.db, principal.projects, q);
  }

  async rename(principal: Principal, id: string, name: string): Promise<ReportRecord> {
    await this.get(principal, id);
    await reportStore.rename(this.deps.db, id, name);
    return this.get(principal, id);
  }

  async delete(principal: Principal, ids: string[]) {
    const deleted = await reportStore.deleteMany(this.deps.db, ids, principal.projects);
    return ids.map((id) => ({ id, status: deleted.includes(id) ? ('deleted' as const) : ('not_found' as const) }));
  }

  /** The report file; each format is rendered at its first download and kept. */
  async download(principal: Principal, id: string, format: ReportFormat): Promise<ReportFile> {
    const report = await this.get(principal, id);
    if (report.state !== 'ready') throw conflict(`Report ${id} is ${report.state}, not ready`);
    const kept = await reportStore.file(this.deps.db, id, format);
    if (kept) return { name: report.name, file: { body: kept, ...reportFileType(format) } };
    const snapshot = (await reportStore.snapshot(this.deps.db, id)) as ReportSnapshot;
    const file = await renderReport(snapshot, format);
    await reportStore.saveFile(this.deps.db, id, format, file.body);
    return { name: report.name, file };
  }

  /** The earlier interface: a summary generated on the spot, bounded by first detection, not stored. */
  async summaryNow(
    principal: Principal,
    q: { format: ReportFormat; projectCodes: string[]; from?: string; to?: string },
  ): Promise<ReportFile> {
    // Projects a download addresses: one it may not see answers 404, as if it did not exist.
    const scope = await this.scope(principal, q.projectCodes, (codes) => notFound(`Project ${codes.join(', ')}`));
    const to = q.to ? new Date(q.to) : new Date();
    const snapshot = await collectSnapshot(
      this.deps.issues,
      {
        id: randomUUID(),
        name: 'Summary',
        type: 'summary',
        author: principal.username,
        period: q.from ? 'custom' : 'all',
        ...scope,
        createdAt: to,
        from: q.from ? new Date(q.from) : null,
      },
      this.deps.topIssues,
    );
    return { name: 'summary', file: await renderReport(snapshot, q.format) };
  }
}
