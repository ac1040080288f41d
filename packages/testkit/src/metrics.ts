/** The sum of a metric's samples in a Prometheus text exposition whose labels include `labels`. */
export function metricSum(text: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const has = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.entries(labels).every(([k, v]) => has[k] === v)) sum += Number(m[3]);
  }
  return sum;
}

/** A metric's sum as a service's own HTTP port exposes it (`/metrics`, when METRICS_PORT is unset, as in the tests). */
export async function serviceMetric(serviceUrl: string, name: string, labels: Record<string, string> = {}) {
  const res = await fetch(`${serviceUrl}/metrics`);
  if (!res.ok) throw new Error(`${serviceUrl}/metrics answered ${res.status}`);
  return metricSum(await res.text(), name, labels);
}
