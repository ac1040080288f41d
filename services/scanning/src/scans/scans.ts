import { randomUUID } from 'node:crypto';
import {
  AppError,
  canSeeProject,
  conflict,
  invalid,
  isUuid,
  LicenseGate,
  LicenseLimitReached,
  notFound,
  Principal,
  serializeAcrossReplicas,
  ServiceData,
  UploadedFile,
  present,
} from '@bulwark/platform';
import { SCAN_EVENTS, toolType, writeEvent } from '@bulwark/contracts';
import type { catalogV1 } from '@bulwark/proto';
import type { CatalogGate } from '../catalog-client';
import { countUpload } from '../scan-metrics';
import type { Checks } from '../checks';
import { CheckRecord, checkStore } from '../store/checks';
import { findingStore, SameImport } from '../store/findings';
import { ScanQuery, ScanRecord, scanStore } from '../store/scans';
import { PullRequestOfUpload, pullRequestOf, PullRequestQuery } from '../domain/pull-request';
import { importKeyOf } from './report-import';
import type { ReportParser } from './report-parser';
import { completeScan, scanRef, StoredReport } from './completion';
import { ScanWorker } from './scan-worker';
import type { UploadDryRun } from './upload-dry-run';

/** An upload's findings: parsed now (streamed from the file into the store), or reused from the check's scan of the same report. */
type UploadContent =
  | {
      kind: 'parse';
      file: UploadedFile;
      format?: string;
      name: string;
      field: string;
      importKey: string;
      fileName?: string;
    }
  | { kind: 'reuse'; same: SameImport; fileName: string };

/** The scan an unchanged upload would reuse was deleted meanwhile: the upload is parsed instead. */
class ReuseSourceGone extends Error {}

/** Running, stopping, uploading and reading scans. */
export class Scans {
  constructor(
    private readonly deps: {
      data: ServiceData;
      catalog: CatalogGate;
      checks: Checks;
      worker: ScanWorker;
      parser: ReportParser;
      license: LicenseGate;
      dryRun: UploadDryRun;
    },
  ) {}

  /** The check's tool, when the check may be scanned now. */
  private async assertRunnable(principal: Principal, check: CheckRecord): Promise<catalogV1.Tool> {
    const layer = await this.deps.catalog.layerFor(principal, check.layerId);
    if (layer.projectArchived) throw conflict(`Project ${check.projectCode} is archived: no scans`);
    return this.deps.catalog.tool(check.securityToolId);
  }

  /**
   * Queues a scan of a check whose layer and tool type the caller has resolved. A check whose scan
   * is still in flight answers 409 naming it; so does one more scan in flight than the license allows
   * (counted under a lock, the limit read before the transaction since it asks identity).
   */
  private async queue(
    principal: Principal,
    check: CheckRecord,
    typeId: number,
    max?: number | null,
  ): Promise<ScanRecord> {
    const type = toolType(typeId);
    if (!type?.execution) {
      throw conflict(
        `The check\u2019s tool (${type?.name ?? typeId}) is not run by Bulwark: upload its reports to POST /api/v1/check/${check.id}/results`,
      );
    }
    const limit = max !== undefined ? max : await this.deps.license.limit('scanning_processes');
    const scan = await this.deps.data.transaction(async (trx) => {
      await checkStore.getForUpdate(trx, check.id);
      const inflight = await scanStore.inFlightFor(trx, [check.id]);
      if (inflight.length > 0)
        throw conflict(`Check ${check.id} already has scan ${inflight[0].id} ${inflight[0].state}`, [
          { field: 'check_id', problem: `scan ${inflight[0].id} is ${inflight[0].state}` },
        ]);
      if (limit !== null) {
        await serializeAcrossReplicas(trx, 'license:scanning_processes');
        LicenseGate.ensureRoom('scanning_processes', limit, await scanStore.countInFlight(trx));
      }
      const id = randomUUID();
      await scanStore.insert(trx, {
        id,
        checkId: check.id,
        layerId: check.layerId,
        projectCode: check.projectCode,
        securityToolId: check.securityToolId,
        toolTypeId: typeId,
        kind: 'scan',
        state: 'queued',
        requestedBy: principal.username,
      });
      const created = present(await scanStore.get(trx, id), `scan ${id}`);
      await writeEvent(trx, SCAN_EVENTS.scanQueued, created.checkId, {
        ...scanRef(created),
        requested_by: principal.username,
      });
      return created;
    });
    this.deps.worker.nudge();
    return scan;
  }

  async runCheck(principal: Principal, checkId: string): Promise<ScanRecord> {
    const check = await this.deps.checks.visible(principal, checkId);
    return this.queue(principal, check, (await this.assertRunnable(principal, check)).typeId);
  }

  async runLayer(
    principal: Principal,
    layerId: string,
  ): Promise<{ check_id: string; scan_result_id: string; state: string }[]> {
    const layer = await this.deps.catalog.layerAt(principal, layerId);
    if (layer.projectArchived) throw conflict(`Project ${layer.projectCode} is archived: no scans`);
    const checks = await checkStore.byLayer(this.deps.data.db, layerId);
    const inflight = new Map(
      (
        await scanStore.inFlightFor(
          this.deps.data.db,
          checks.map((c) => c.id),
        )
      ).map((s) => [s.checkId, s]),
    );
    // One catalog lookup per tool, not per check.
    const typeIds = new Map<string, number>();
    for (const toolId of new Set(checks.map((c) => c.securityToolId)))
      typeIds.set(toolId, (await this.deps.catalog.tool(toolId)).typeId);
    // A layer whose scans do not all fit under the license's limit queues none of them.
    const max = await this.deps.license.limit('scanning_processes');
    const toQueue = checks.filter(
      (c) =>
        !inflight.has(c.id) &&
        toolType(present(typeIds.get(c.securityToolId), `the type of tool ${c.securityToolId}`))?.execution,
    ).length;
    if (toQueue > 0)
      LicenseGate.ensureRoom('scanning_processes', max, await scanStore.countInFlight(this.deps.data.db), toQueue);
    const results = [];
    for (const check of checks) {
      const typeId = present(typeIds.get(check.securityToolId), `the type of tool ${check.securityToolId}`);
      let scan = inflight.get(check.id);
      if (!scan && toolType(typeId)?.execution) {
        try {
          scan = await this.queue(principal, check, typeId, max);
        } catch (err) {
          // Queued by someone else since the batch read: report that scan. A limit reached meanwhile is the answer.
          if (!(err instanceof AppError && err.code === 'conflict') || err instanceof LicenseLimitReached) throw err;
          [scan] = await scanStore.inFlightFor(this.deps.data.db, [check.id]);
        }
      }
      if (scan) results.push({ check_id: check.id, scan_result_id: scan.id, state: scan.state });
    }
    return results;
  }

  /** Stops the check's queued or running scan; the runner kills the scanner where it runs. */
  async stopCheck(principal: Principal, checkId: string): Promise<ScanRecord> {
    const check = await this.deps.checks.visible(principal, checkId);
    const [scan] = await scanStore.inFlightFor(this.deps.data.db, [check.id]);
    if (!scan) throw conflict(`Check ${checkId} has no scan queued or running`);
    await this.deps.data.transaction(async (trx) => {
      await scanStore.requestStop(trx, scan.id);
      if (await scanStore.finish(trx, scan.id, ['queued'], 'stopped', { error: null }))
        await writeEvent(trx, SCAN_EVENTS.scanStopped, scan.checkId, { ...scanRef(scan), by: principal.username });
    });
    // Here: abort now. Elsewhere: that replica sees stop_requested at its next heartbeat.
    this.deps.worker.abortLocal(scan.id);
    return this.waitForStop(scan.id);
  }

  private async waitForStop(scanId: string): Promise<ScanRecord> {
    const deadline = Date.now() + 15000;
    for (;;) {
      const scan = present(await scanStore.get(this.deps.data.db, scanId), `scan ${scanId}`);
      if (!['queued', 'running', 'parsing'].includes(scan.state) || Date.now() > deadline) return scan;
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /**
   * An uploaded report becomes a completed scan result at once, or a 400 and nothing at all. The same
   * report uploaded again to the check is not parsed again: it reuses the stored findings of the first.
   */
  async upload(
    principal: Principal,
    checkId: string,
    body: UploadedFile,
    q: { format?: string; file_name?: string; pull_request?: PullRequestQuery },
  ): Promise<ScanRecord> {
    const pullRequest = pullRequestOf(q.pull_request);
    const { check, tool, declared } = await this.uploadTarget(principal, checkId, body, q);
    const importKey = importKeyOf(body.sha256, { format: declared, name: q.file_name });
    const same = await findingStore.sameImport(this.deps.data.db, check.id, importKey);
    if (same) {
      try {
        const copied = await this.storeUpload(
          principal,
          check,
          tool,
          { kind: 'reuse', same, fileName: q.file_name ?? `upload.${same.format}` },
          pullRequest,
        );
        countUpload('copied');
        return copied;
      } catch (err) {
        if (!(err instanceof ReuseSourceGone)) throw err;
      }
    }
    const parsed = await this.storeUpload(
      principal,
      check,
      tool,
      {
        kind: 'parse',
        file: body,
        format: declared,
        name: q.file_name ?? 'upload',
        field: q.format ? 'format' : 'body',
        importKey,
        fileName: q.file_name,
      },
      pullRequest,
    );
    countUpload('parsed');
    return parsed;
  }

  /**
   * What the upload would do, written nowhere: the same checks as an upload (the caller's check, a
   * tool that takes reports, a body), then the report parsed and handed to the issues service's dry run.
   */
  async dryRun(principal: Principal, checkId: string, body: UploadedFile, q: { format?: string; file_name?: string }) {
    const { check, tool, declared } = await this.uploadTarget(principal, checkId, body, q);
    return this.deps.dryRun.run(
      {
        scan_result_id: randomUUID(),
        check_id: check.id,
        layer_id: check.layerId,
        project_code: check.projectCode,
        tool_id: check.securityToolId,
        tool_name: tool.name,
        findings_count: 0,
        uploaded: true,
      },
      { path: body.path, format: declared, name: q.file_name ?? 'upload' },
      q.format ? 'format' : 'body',
    );
  }

  /** The check an upload goes to, its tool and the report's declared format, or the error that refuses it. */
  private async uploadTarget(
    principal: Principal,
    checkId: string,
    body: UploadedFile,
    q: { format?: string },
  ): Promise<{ check: CheckRecord; tool: catalogV1.Tool; declared: string | undefined }> {
    const check = await this.deps.checks.visible(principal, checkId);
    const tool = await this.assertRunnable(principal, check);
    const typeId = tool.typeId;
    if (body.size === 0)
      throw invalid('The request body is empty: send the report file as the body', [
        { field: 'body', problem: 'is empty' },
      ]);
    const declared =
      q.format ?? (toolType(typeId)?.resultFormat === 'auto' ? undefined : toolType(typeId)?.resultFormat);
    return { check, tool, declared };
  }

  private storeUpload(
    principal: Principal,
    check: CheckRecord,
    tool: catalogV1.Tool,
    upload: UploadContent,
    pullRequest: PullRequestOfUpload | undefined,
  ): Promise<ScanRecord> {
    const id = randomUUID();
    return this.deps.data.transaction(async (trx) => {
      const inflight = await scanStore.inFlightFor(trx, [check.id]);
      if (inflight.length > 0)
        throw conflict(`Check ${check.id} has scan ${inflight[0].id} ${inflight[0].state}; wait for it or stop it`);
      await scanStore.insert(trx, {
        id,
        checkId: check.id,
        layerId: check.layerId,
        projectCode: check.projectCode,
        securityToolId: check.securityToolId,
        toolTypeId: tool.typeId,
        kind: 'upload',
        state: 'parsing',
        requestedBy: principal.username,
        pullRequest: pullRequest ?? null,
      });
      let summary: StoredReport;
      if (upload.kind === 'reuse') {
        if (!(await findingStore.reuseImport(trx, id, upload.same, upload.fileName))) throw new ReuseSourceGone();
        summary = upload.same;
      } else {
        summary = await this.deps.parser.store(
          trx,
          { id, checkId: check.id },
          { path: upload.file.path, format: upload.format, name: upload.name },
          upload.field,
          { fileName: upload.fileName, importKey: upload.importKey },
        );
      }
      const scan = { id, checkId: check.id, layerId: check.layerId, projectCode: check.projectCode };
      await completeScan(
        trx,
        scan,
        summary,
        { id: check.securityToolId, name: tool.name },
        {
          uploaded: true,
          pullRequest: pullRequest && { ...pullRequest, source_id: check.scanSourceId },
        },
      );
      return present(await scanStore.get(trx, id), `scan ${id}`);
    });
  }

  async get(principal: Principal, id: string): Promise<ScanRecord> {
    const scan = isUuid(id) ? await scanStore.get(this.deps.data.db, id) : undefined;
    if (!scan || !canSeeProject(principal, scan.projectCode)) throw notFound(`Scan result ${id}`);
    return scan;
  }

  list(principal: Principal, q: Omit<ScanQuery, 'projects'>) {
    return scanStore.list(this.deps.data.db, { ...q, projects: principal.projects });
  }

  /** A scan result's findings, a page of them; with `notIn`, only those that other result does not have. */
  async findings(
    principal: Principal,
    id: string,
    q: { page: number; limit: number; severity?: string; notIn?: string },
  ) {
    const scan = await this.get(principal, id);
    if (q.notIn) {
      const other = isUuid(q.notIn) ? await scanStore.get(this.deps.data.db, q.notIn) : undefined;
      if (!other || !canSeeProject(principal, other.projectCode))
        throw invalid(`Scan result ${q.notIn} does not exist`, [
          { field: 'filter[not_in]', problem: 'is not a known scan result' },
        ]);
    }
    return findingStore.page(this.deps.data.db, scan.id, q);
  }

  filterValues(principal: Principal, q: Omit<Parameters<typeof scanStore.filterValues>[1], 'projects'>) {
    return scanStore.filterValues(this.deps.data.db, { ...q, projects: principal.projects });
  }

  async report(principal: Principal, id: string) {
    const scan = await this.get(principal, id);
    const report = await findingStore.report(this.deps.data.db, scan.id);
    if (!report)
      throw new AppError(
        'not_found',
        `Scan result ${id} has no report${scan.state === 'failed' ? ' (it failed)' : ' yet'}`,
      );
    return report;
  }
}
