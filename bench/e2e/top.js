#!/usr/bin/env node
// The top of a V8 CPU profile (node --cpu-prof): functions by self time, with their share of the
// samples. Usage: node bench/e2e/top.js file.cpuprofile [count]
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const [file, count = '15'] = process.argv.slice(2);
const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map();
const dt = profile.timeDeltas;
for (let i = 0; i < profile.samples.length; i++) {
  const n = byId.get(profile.samples[i]);
  const f = n.callFrame;
  const where = f.url ? `${path.basename(f.url)}:${f.lineNumber + 1}` : '';
  const key = `${f.functionName || '(anonymous)'} ${where}`.trim();
  self.set(key, (self.get(key) ?? 0) + (dt[i] ?? 0));
}
const total = [...self.values()].reduce((a, b) => a + b, 0);
const idle = self.get('(idle)') ?? 0;
console.log(`${path.basename(file)}: ${(total / 1e6).toFixed(1)} s profiled, ${((total - idle) / 1e6).toFixed(1)} s busy`);
for (const [k, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(count))) {
  console.log(`${(us / 1e6).toFixed(2).padStart(7)} s ${((100 * us) / total).toFixed(1).padStart(5)} %  ${k}`);
}
