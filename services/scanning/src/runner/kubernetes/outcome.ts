import fs from 'node:fs';
import path from 'node:path';
import type * as K8s from '@kubernetes/client-node' with { 'resolution-mode': 'import' };
import { GitCheckoutError } from '@bulwark/platform';
import { ScanRunError, ScanRunOutcome } from '../scan-runner';
import { ClusterScan, DEFAULT_RESOURCES } from './job-spec';
import { LogCollector, tail } from './log-collector';
import { CHECKOUT_CONTAINER, SCANNER_CONTAINER } from './names';
import { CHECKOUT_FAILURES } from './scripts';

/** The report the scanner handed over in its log, written where the worker reads it. */
export function handOver(scan: ClusterScan, frame: LogCollector['frame'], output: string): ScanRunOutcome {
  const { exec } = scan;
  if (!frame) throw new ScanRunError(`${scan.tool.name} ended without handing over its report: ${tail(output, 500)}`);
  if (!exec.okExitCodes.includes(frame.exitCode))
    throw new ScanRunError(`${scan.tool.name} failed with exit code ${frame.exitCode}: ${tail(output, 500)}`);
  if (!frame.report)
    throw new ScanRunError(`${scan.tool.name} finished without writing its report (${exec.resultFile})`);
  fs.mkdirSync(scan.resultDir, { recursive: true, mode: 0o700 });
  const reportPath = path.join(scan.resultDir, exec.resultFile);
  fs.writeFileSync(reportPath, frame.report, { mode: 0o600 });
  return { reportPath, log: output };
}

/** Why the Job failed, in the scan's words: checkout, memory, deadline, or the Job's own reason. */
export function jobFailure(
  scan: ClusterScan,
  condition: K8s.V1JobCondition | undefined,
  pod: K8s.V1Pod | undefined,
  waiting: string | undefined,
  output: string,
): Error {
  const checkoutEnd = pod?.status?.initContainerStatuses?.find((s) => s.name === CHECKOUT_CONTAINER)?.state?.terminated;
  if (checkoutEnd && checkoutEnd.exitCode !== 0) {
    const explain = CHECKOUT_FAILURES[(checkoutEnd.message ?? '').trim()] ?? CHECKOUT_FAILURES.clone;
    return new GitCheckoutError(explain(scan.checkout));
  }
  const scannerEnd = pod?.status?.containerStatuses?.find((s) => s.name === SCANNER_CONTAINER)?.state?.terminated;
  const log = output ? `: ${tail(output, 500)}` : '';
  if (scannerEnd?.reason === 'OOMKilled')
    return new ScanRunError(
      `${scan.tool.name} ran out of memory (limit ${scan.resources?.memory ?? DEFAULT_RESOURCES.memory})${log}`,
    );
  if (condition?.reason === 'DeadlineExceeded') {
    return new ScanRunError(
      `${scan.tool.name} did not finish within ${Math.round(scan.timeoutMs / 1000)} s and was stopped${waiting && !scannerEnd ? ` (its pod was still waiting: ${waiting})` : ''}${log}`,
    );
  }
  const why = [condition?.reason, condition?.message].filter(Boolean).join(': ') || 'no reason given';
  return new ScanRunError(`The scan Job failed (${why})${log}`);
}
