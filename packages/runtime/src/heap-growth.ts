import v8 from 'node:v8';

/**
 * How far V8 lets a heap grow past what its last full collection kept before it collects again, in
 * percent (`--heap-growing-percent`, for every isolate of the process: the report parser's threads
 * too). V8 picks up to 300 % on its own for a process with gigabytes of address space, so the issues
 * service's ingestion of a 100 MiB report, about 120 MB live, grew the heap to 400 – 470 MB of
 * garbage that RSS then kept (bench/README.md, "The upload's memory: one 100 MiB upload").
 * Set here rather than on the command line: `NODE_OPTIONS` does not take this flag, and every
 * launcher (image, tests, benchmarks) starts this file.
 */
export function limitHeapGrowth(percent: number): void {
  if (percent > 0) v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
}
