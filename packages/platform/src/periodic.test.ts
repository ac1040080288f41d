import { expect } from 'chai';
import { createLogger } from './logging';
import { PeriodicTask } from './periodic';

describe('a periodic task', () => {
  it('survives a run that throws before its first await, and runs again', async () => {
    let runs = 0;
    const task = new PeriodicTask({
      name: 'throwing task',
      everyMs: 10,
      run: () => {
        runs++;
        throw new Error('synchronous failure');
      },
      log: createLogger('test'),
    });
    task.start();
    while (runs < 3) await new Promise((r) => setTimeout(r, 10));
    await task.stop();
    expect(runs).to.be.at.least(3);
  });
});
