import v8 from 'node:v8';

/**
 * How far V8 lets a heap grow past what its last full collection kept before it collects again, in
 * percent (`--heap-growing-percent`, for every isolate of the process: the report parser's threads
 * too). V8 picks up to 300 % on its own when its heap limit is gigabytes, so the issues service's
 * ingestion of a 100 MiB report, about 120 MB live, grew the heap to 400 – 470 MB, most of it
 * garbage, and RSS kept the pages (bench/README.md, "The upload's memory: one 100 MiB upload").
 * Set here rather than on the command line: `NODE_OPTIONS` does not take this flag, and every
 * launcher (image, tests, benchmarks) starts the runtime.
 */
export function limitHeapGrowth(percent: number): void {
  if (percent > 0) v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
}
