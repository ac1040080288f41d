#!/usr/bin/env node
// The top of a V8 CPU profile (node --cpu-prof, bench/e2e/profile.js): functions by self time, with
// their share of the samples; with a pattern, also the inclusive time of the functions it matches.
// Usage: node bench/e2e/top.js file.cpuprofile [count] [function-name-regex]
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const [file, count = '15', pattern] = process.argv.slice(2);
const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const name = (n) => {
  const f = n.callFrame;
  const where = f.url ? `${path.basename(f.url)}:${f.lineNumber + 1}` : '';
  return `${f.functionName || '(anonymous)'} ${where}`.trim();
};
const self = new Map();
const inclusive = new Map();
const matches = pattern ? new RegExp(pattern) : undefined;
const dt = profile.timeDeltas;
for (let i = 0; i < profile.samples.length; i++) {
  const n = byId.get(profile.samples[i]);
  const key = name(n);
  self.set(key, (self.get(key) ?? 0) + (dt[i] ?? 0));
  if (!matches) continue;
  const seen = new Set();
  for (let id = n.id; id !== undefined; id = parent.get(id)) {
    const k = name(byId.get(id));
    if (matches.test(byId.get(id).callFrame.functionName) && !seen.has(k)) {
      seen.add(k);
      inclusive.set(k, (inclusive.get(k) ?? 0) + (dt[i] ?? 0));
    }
  }
}
const total = [...self.values()].reduce((a, b) => a + b, 0);
const idle = self.get('(idle)') ?? 0;
console.log(
  `${path.basename(file)}: ${(total / 1e6).toFixed(1)} s profiled, ${((total - idle) / 1e6).toFixed(1)} s busy`,
);
for (const [k, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(count))) {
  console.log(`${(us / 1e6).toFixed(2).padStart(7)} s ${((100 * us) / total).toFixed(1).padStart(5)} %  ${k}`);
}
if (matches) {
  console.log('inclusive:');
  for (const [k, us] of [...inclusive].sort((a, b) => b[1] - a[1]))
    console.log(`${(us / 1e6).toFixed(2).padStart(7)} s ${((100 * us) / total).toFixed(1).padStart(5)} %  ${k}`);
}
