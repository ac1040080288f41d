import { expect } from 'chai';
import { ModuleLifecycle } from './lifecycle';
import { captureLogLines, createLogger } from './logging';

describe('a module lifecycle', () => {
  it('stops in reverse order of registration, awaiting each step, and goes on past a step that fails', async () => {
    const lifecycle = new ModuleLifecycle(createLogger('lifecycle-test'));
    const done: string[] = [];
    lifecycle.onStop(() => done.push('database'));
    lifecycle.onStop(async () => {
      await new Promise((r) => setTimeout(r, 20));
      done.push('slow client');
    });
    lifecycle.onStop(() => {
      throw new Error('broken client');
    });
    lifecycle.onStop(() => done.push('server'));
    const lines: string[] = [];
    const release = captureLogLines((line) => lines.push(line));
    try {
      await lifecycle.stop();
    } finally {
      release();
    }
    expect(done).to.deep.equal(['server', 'slow client', 'database']);
    expect(lines.filter((l) => l.includes('broken client'))).to.have.length(1);
  });

  it('runs a periodic task until stop, and runs each step once however often it is stopped', async () => {
    const lifecycle = new ModuleLifecycle(createLogger('lifecycle-test'));
    let runs = 0;
    let stops = 0;
    lifecycle.onStop(() => stops++);
    lifecycle.every('counting', 5, async () => {
      runs++;
    });
    while (runs < 2) await new Promise((r) => setTimeout(r, 5));
    await lifecycle.stop();
    const after = runs;
    await new Promise((r) => setTimeout(r, 30));
    await lifecycle.stop();
    expect(runs).to.equal(after);
    expect(stops).to.equal(1);
  });
});
