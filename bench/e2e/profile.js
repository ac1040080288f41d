// Preloaded into each process of the system (NODE_OPTIONS=--require, where --cpu-prof is not
// allowed): profiles the whole process and writes <dir>/<TARGET>-<pid>.cpuprofile when it exits.
'use strict';
const fs = require('node:fs');
const inspector = require('node:inspector');
const path = require('node:path');

const dir = process.env.BENCH_CPU_PROF_DIR;
if (dir) {
  const session = new inspector.Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.start');
  // An in-thread session answers synchronously, so the profile is complete before the process ends.
  process.on('exit', () => {
    session.post('Profiler.stop', (err, res) => {
      if (!err)
        fs.writeFileSync(
          path.join(dir, `${(process.env.TARGET || 'node').replace(/,/g, '+')}-${process.pid}.cpuprofile`),
          JSON.stringify(res.profile),
        );
    });
  });
}
