// Preloaded into each process of the system (NODE_OPTIONS=--require) with BENCH_MEMORY: samples the
// process's memory every 50 ms and writes <dir>/<TARGET>-<pid>.memory.json when it exits: the
// peak of each part and the parts at the moment RSS peaked. RSS minus the main thread's V8 heap and
// its external memory is what the rest holds: worker threads' heaps (the report parser), code,
// native buffers and the allocator's free lists.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { constants, PerformanceObserver } = require('node:perf_hooks');

const dir = process.env.BENCH_MEMORY_DIR;
if (dir) {
  const mb = (n) => Math.round(n / 1048576);
  const start = process.memoryUsage();
  const peak = { rss: 0, heapTotal: 0, heapUsed: 0, external: 0, arrayBuffers: 0 };
  let atRssPeak = start;
  // Every 10th sample with its wall time, to place the peak among the uploads and their phases.
  const timeline = [];
  let samples = 0;
  const timer = setInterval(() => {
    const m = process.memoryUsage();
    if (samples++ % 10 === 0) timeline.push({ at: new Date().toISOString(), rss: mb(m.rss), heapUsed: mb(m.heapUsed) });
    for (const k of Object.keys(peak)) peak[k] = Math.max(peak[k], m[k]);
    if (m.rss >= atRssPeak.rss) atRssPeak = m;
  }, 50);
  timer.unref();
  // The heap still in use right after a full collection: what the process really holds.
  let liveAfterMajorGc = 0;
  new PerformanceObserver((list) => {
    for (const e of list.getEntries())
      if (e.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR)
        liveAfterMajorGc = Math.max(liveAfterMajorGc, process.memoryUsage().heapUsed);
  }).observe({ entryTypes: ['gc'] });
  process.on('exit', () => {
    const view = (m) => ({
      rss: mb(m.rss),
      heapTotal: mb(m.heapTotal),
      heapUsed: mb(m.heapUsed),
      external: mb(m.external),
      arrayBuffers: mb(m.arrayBuffers),
      rest: mb(m.rss - m.heapTotal - m.external),
    });
    fs.writeFileSync(
      path.join(dir, `${(process.env.TARGET || 'node').replace(/,/g, '+')}-${process.pid}.memory.json`),
      JSON.stringify(
        {
          start: view(start),
          peak: view(peak),
          atRssPeak: view(atRssPeak),
          liveAfterMajorGc: mb(liveAfterMajorGc),
          timeline,
        },
        null,
        2,
      ),
    );
  });
}
