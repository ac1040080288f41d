// `npm run lint`: ESLint over every file eslint.config.mjs does not ignore, in two processes. Typed
// linting keeps each TypeScript program it opens until the process exits: the workspaces' own
// tsconfig.json programs (found by the project service, about 3.8 GB together) and
// tsconfig.tests.json's (about 1.2 GB) held at once exceed Node's default heap; one process each
// stays within it. Arguments (`-- --fix`) go to both.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { tests } from '../eslint.config.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const eslint = fileURLToPath(new URL('../node_modules/.bin/eslint', import.meta.url));
const extra = process.argv.slice(2);
const parts = [
  ['tests, benchmarks and fuzzers', tests],
  ['the rest', [...tests.flatMap((glob) => ['--ignore-pattern', glob]), '.']],
];
let status = 0;
for (const [what, files] of parts) {
  const run = spawnSync(eslint, ['--max-warnings=0', ...extra, ...files], { cwd: root, stdio: 'inherit' });
  if (run.status !== 0) {
    console.error(`lint: ESLint failed on ${what} (exit ${run.status ?? run.signal})`);
    status = 1;
  }
}
process.exit(status);
