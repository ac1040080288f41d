import { spawnSync } from 'node:child_process';
import { expect } from 'chai';

/** What a process with the last-resort handlers does: forgets a rejection, later throws from a timer. */
const CHILD = `
const { createLogger, installLastResortHandlers } = require('@bulwark/platform');
installLastResortHandlers(createLogger('child'), (reason) => {
  console.log('stop called: ' + reason);
  process.exit(3);
});
Promise.reject(new Error('forgotten rejection'));
setTimeout(() => {
  console.log('still running');
  setTimeout(() => { throw new Error('thrown from a timer'); });
});
`;

describe('the last resort of a process', () => {
  it('logs an unhandled rejection as JSON and keeps running; logs an uncaught exception and stops through stop()', () => {
    const run = spawnSync(process.execPath, ['-e', CHILD], {
      cwd: __dirname,
      encoding: 'utf8',
      env: { ...process.env, LOG_LEVEL: 'info' },
    });
    const lines = run.stdout.trim().split('\n');
    const json = lines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
    expect(json.map((j) => [j.level, j.message, j.error])).to.deep.equal([
      ['error', 'unhandled promise rejection; process keeps running', 'forgotten rejection'],
      ['error', 'uncaught exception; process stops', 'thrown from a timer'],
    ]);
    expect(lines.filter((l) => !l.startsWith('{'))).to.deep.equal(['still running', 'stop called: uncaughtException']);
    expect(run.status).to.equal(3);
  });
});
