import fs from 'node:fs';
import path from 'node:path';
import { ApiClient, apiConfig } from '../api/client';
import { parseFlags } from '../args';
import type { LayerRunResponse, RunResponse, ScanIssueStats, ScanResult } from '../api/types';
import { CliError, EXIT, usageError } from '../errors';
import { pullRequestOfRun } from '../pull-request';
import { junitReport } from '../junit';
import { scanSummary } from '../summary';
import { waitForScans } from '../wait';

/** Ctrl-C ends a wait with this code (128 + SIGINT), as shells report an interrupted command. */
const INTERRUPTED = 130;
const POLL_MS = 1000;

const connection = {
  url: { type: 'string' },
  token: { type: 'string' },
} as const;

const waiting = {
  wait: { type: 'boolean', default: false },
  'fail-on-gate': { type: 'boolean', default: false },
  'stop-on-cancel': { type: 'boolean', default: false },
  timeout: { type: 'string', default: '3600' },
  junit: { type: 'string' },
} as const;

function seconds(text: string, flag: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw usageError(`--${flag} must be a whole number of seconds`);
  return n;
}

interface Started {
  scanResultId: string;
  checkId: string;
}

/**
 * Waits for the scans, prints each summary and answers the exit code: 1 when --fail-on-gate and a
 * gate failed, 3 when a scan failed or was stopped. Ctrl-C stops waiting (and, with --stop-on-cancel,
 * the scans too).
 */
async function settle(
  api: ApiClient,
  started: Started[],
  flags: { 'fail-on-gate': boolean; 'stop-on-cancel': boolean; timeout: string; junit?: string },
): Promise<number> {
  const cancel = new AbortController();
  const onInterrupt = () => cancel.abort(new CliError('stopped waiting', INTERRUPTED));
  process.once('SIGINT', onInterrupt);
  let scans: ScanResult[];
  try {
    scans = await waitForScans(
      api,
      started.map((s) => s.scanResultId),
      {
        timeoutSeconds: seconds(flags.timeout, 'timeout'),
        pollMs: POLL_MS,
        out: process.stderr,
        signal: cancel.signal,
      },
    );
  } catch (err) {
    if (!cancel.signal.aborted) throw err;
    if (flags['stop-on-cancel']) {
      for (const s of started)
        await api.post(`/api/v1/check/${encodeURIComponent(s.checkId)}/stop`).catch(() => undefined);
      throw new CliError('stopped waiting and asked Bulwark to stop the scan(s)', INTERRUPTED);
    }
    throw new CliError(
      `stopped waiting; the scan(s) go on: ${started.map((s) => s.scanResultId).join(', ')}`,
      INTERRUPTED,
    );
  } finally {
    process.off('SIGINT', onInterrupt);
  }
  if (flags.junit) fs.writeFileSync(flags.junit, await junitReport(api, scans));
  let code: number = EXIT.ok;
  for (const scan of scans) {
    const stats =
      scan.state === 'completed'
        ? await api.get<ScanIssueStats>(`/api/v1/scan-result/${scan.id}/stats/issues`)
        : undefined;
    process.stdout.write(`${scanSummary(scan, stats).join('\n')}\n`);
    if (scan.state !== 'completed') code = EXIT.server;
    else if (flags['fail-on-gate'] && scan.quality_gate?.status === 'failed' && code === EXIT.ok)
      code = EXIT.gateFailed;
  }
  return code;
}

/**
 * bulwark upload --check <id> <report> [--format <id>] [--pull-request <n>] [--wait] [--fail-on-gate]: the
 * pull request is the flag's, else the one the CI's variables name (pull-request.ts).
 */
export async function uploadCommand(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const { values, positionals } = parseFlags(
    {
      args,
      strict: true,
      allowPositionals: true,
      options: {
        ...connection,
        ...waiting,
        check: { type: 'string' },
        format: { type: 'string' },
        'pull-request': { type: 'string' },
      },
    },
    1,
  );
  if (!values.check) throw usageError('upload needs --check <check id>');
  const api = new ApiClient(apiConfig(values, env));
  const file = positionals[0];
  const query = new URLSearchParams({ file_name: path.basename(file) });
  if (values.format) query.set('format', values.format);
  const pullRequest = pullRequestOfRun(values['pull-request'], env);
  if (pullRequest) {
    query.set('pull_request[number]', String(pullRequest.number));
    if (pullRequest.head_sha) query.set('pull_request[head_sha]', pullRequest.head_sha);
    if (pullRequest.base_branch) query.set('pull_request[base_branch]', pullRequest.base_branch);
  }
  const run = await api.upload<RunResponse>(
    `/api/v1/check/${encodeURIComponent(values.check)}/results?${query.toString()}`,
    file,
  );
  process.stdout.write(`uploaded ${file}: scan ${run.scan_result_id} (${run.state})\n`);
  if (!values.wait && !values['fail-on-gate'] && !values.junit) return EXIT.ok;
  return settle(api, [{ scanResultId: run.scan_result_id, checkId: values.check }], values);
}

/** bulwark run --check <id> | --layer <id> [--wait] [--fail-on-gate] */
export async function runCommand(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const { values } = parseFlags({
    args,
    strict: true,
    options: { ...connection, ...waiting, check: { type: 'string' }, layer: { type: 'string' } },
  });
  const { check, layer } = values;
  const oneTarget = () => usageError('run needs either --check <check id> or --layer <layer id>');
  if (Boolean(check) === Boolean(layer)) throw oneTarget();
  const api = new ApiClient(apiConfig(values, env));
  let started: Started[];
  if (check) {
    const run = await api.post<RunResponse>(`/api/v1/check/${encodeURIComponent(check)}/run`);
    started = [{ scanResultId: run.scan_result_id, checkId: check }];
  } else {
    // Checked above: without a check there is a layer.
    if (!layer) throw oneTarget();
    const run = await api.post<LayerRunResponse>(`/api/v1/layer/${encodeURIComponent(layer)}/run`);
    started = run.scan_results.map((r) => ({ scanResultId: r.scan_result_id, checkId: r.check_id }));
  }
  for (const s of started) process.stdout.write(`queued scan ${s.scanResultId} of check ${s.checkId}\n`);
  if (!values.wait && !values['fail-on-gate'] && !values.junit) return EXIT.ok;
  return settle(api, started, values);
}

/** bulwark gate --scan-result <id>: waits for the verdict and exits 1 when it failed. */
export async function gateCommand(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const { values } = parseFlags({
    args,
    strict: true,
    options: { ...connection, 'scan-result': { type: 'string' }, timeout: waiting.timeout, junit: waiting.junit },
  });
  if (!values['scan-result']) throw usageError('gate needs --scan-result <scan result id>');
  const api = new ApiClient(apiConfig(values, env));
  const scan = await api.get<ScanResult>(`/api/v1/scan-result/${encodeURIComponent(values['scan-result'])}`);
  return settle(api, [{ scanResultId: scan.id, checkId: scan.check_id }], {
    'fail-on-gate': true,
    'stop-on-cancel': false,
    timeout: values.timeout,
    junit: values.junit,
  });
}
