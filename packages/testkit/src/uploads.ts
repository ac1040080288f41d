import type { Api, Json } from './http';

/**
 * Uploads a JSON report to a check and waits until its scan's issues (as many as `issues`) are
 * listed: ingestion runs after the upload's answer, on the scan's event. Answers those issues.
 */
export async function uploadAndIngest(api: Api, checkId: string, report: string, issues: number): Promise<Json[]> {
  const upload = await api
    .withHeaders({ 'content-type': 'application/json' })
    .request('POST', `/api/v1/check/${checkId}/results`, undefined, report);
  if (upload.status !== 200) throw new Error(`upload: ${upload.status} ${JSON.stringify(upload.body)}`);
  const scan = upload.body.scan_result_id as string;
  const deadline = Date.now() + 30000;
  for (;;) {
    const res = await api.get(`/api/v1/issues?limit=1000&filter[scan]=${scan}`);
    if (res.status === 200 && (res.body.items as Json[]).length === issues) return res.body.items as Json[];
    if (Date.now() > deadline) throw new Error(`scan ${scan} not ingested`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
