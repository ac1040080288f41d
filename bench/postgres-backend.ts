/** What the benchmarks that write into PostgreSQL share: the backend's CPU time and COPY's text format. */
import fs from 'node:fs';

/**
 * User + system CPU seconds of a local process, such as the PostgreSQL backend of a transaction
 * (`select pg_backend_pid()`), from Linux /proc in clock ticks of 1/100 s (USER_HZ); undefined when
 * the process is not visible here (a server on another machine).
 */
export function backendCpu(pid: number): number | undefined {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

/** A value in COPY's text format: NULL as \N, arrays as PostgreSQL array literals, objects as JSON. */
export function copyText(v: unknown): string {
  if (v === null || v === undefined) return '\\N';
  if (Array.isArray(v))
    return copyText(
      `{${v.map((x) => (typeof x === 'number' ? String(x) : `"${String(x).replace(/[\\"]/g, '\\$&')}"`)).join(',')}}`,
    );
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- objects are handled here: what is left of a row's values is a string, number or boolean
  const s = typeof v === 'object' ? JSON.stringify(v) : String(v);
  return s.replace(/[\\\n\r\t]/g, (c) => ({ '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' })[c]!);
}
