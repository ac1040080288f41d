/** Uploads through the gateway as a user does, timed until the scan's issues and gate verdict are visible (bench/e2e, bench/issues). */
import fs from 'node:fs';
import { Readable } from 'node:stream';
import { type Api, gateOnHighs, type Json, manualCheck, projectWithSource, uniqueSuffix } from '@bulwark/testkit';

const MANUAL_TOOL_TYPE = 20;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function ok<T = Json>(what: string, res: { status: number; body: T }): T {
  if (res.status !== 200) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** A project with a layer gated by "no high severity", a manual tool and a check to upload to. */
export async function newCheck(api: Api): Promise<string> {
  const setup = await projectWithSource(api, {
    code: `e2e-${uniqueSuffix()}`,
    sourceUrl: 'http://127.0.0.1:9/bench.git',
    toolTypes: [MANUAL_TOOL_TYPE],
  });
  await gateOnHighs(api, setup.layerId, `no highs ${setup.code}`, 'inform');
  return manualCheck(api, setup);
}

export interface Upload {
  /** Seconds from the upload request's start until every issue of the scan is visible and its gate verdict stored. */
  seconds: number;
  scanId: string;
  /** Wall clock of the request's start (ms), to place the services' own timestamps on the same line. */
  startedAt: number;
  answeredS: number;
}

/** Every upload carries the same file name, as a pipeline's rescans do (the name is part of the exact-copy key). */
const UPLOAD_NAME = 'sarif-100k.sarif';

export async function uploadAndWait(api: Api, token: string, checkId: string, file: string): Promise<Upload> {
  const startedAt = Date.now();
  const started = process.hrtime.bigint();
  const res = await fetch(`${api.baseUrl}/api/v1/check/${checkId}/results?file_name=${UPLOAD_NAME}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      'content-length': String(fs.statSync(file).size),
    },
    body: Readable.toWeb(fs.createReadStream(file)) as ReadableStream,
    duplex: 'half',
  } as RequestInit);
  const { scan_result_id: id } = ok('upload', { status: res.status, body: await res.json() }) as {
    scan_result_id: string;
  };
  const upload = Number(process.hrtime.bigint() - started) / 1e9;
  // Distinct findings: the upload merged true duplicates, and each becomes one issue.
  const expected = ok('scan result', await api.get(`/api/v1/scan-result/${id}`)).findings_count;
  const deadline = Date.now() + 600000;
  for (;;) {
    // The verdict reaches the scan result once the ingestion has committed (quality_gate.evaluated),
    // so it comes first; only then are the scan's issues counted, a pass over every issue that would
    // otherwise compete with the ingestion it measures four times a second.
    const verdict = ok('scan result', await api.get(`/api/v1/scan-result/${id}`)).quality_gate;
    const count = verdict ? ok('count', await api.get(`/api/v1/issues/count?filter[scan]=${id}`)).count : undefined;
    if (count === expected) break;
    if (Date.now() > deadline)
      throw new Error(`scan ${id}: ${count ?? 'no verdict and unknown'} of ${expected} issues after 10 minutes`);
    await sleep(250);
  }
  const total = Number(process.hrtime.bigint() - started) / 1e9;
  console.log(
    `    ${new Date(startedAt).toISOString()} ${expected} findings: upload answered after ${upload.toFixed(2)} s, issues and verdict after ${total.toFixed(2)} s`,
  );
  return { seconds: total, scanId: id, startedAt, answeredS: upload };
}
