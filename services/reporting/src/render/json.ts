import { ReportSnapshot } from '../domain/snapshot';

/** The snapshot exactly as stored, for readers who process the report further. */
export function renderJson(snapshot: ReportSnapshot): Buffer {
  return Buffer.from(`${JSON.stringify(snapshot, null, 2)}\n`, 'utf8');
}
