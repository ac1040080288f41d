// A worker thread of ReportParser's pool: parsing runs beside the service's event loop, not on it.
import { ImportOutcome, importReportFile, ImportTask } from './report-import';

/** Batches sent ahead of the store: one being stored while the next is parsed, never more. */
const AHEAD = 2;

class StoreGaveUp extends Error {}

export = function parse(task: ImportTask): ImportOutcome {
  const progress = new Int32Array(task.progress);
  let sent = 0;
  // Blocks this thread (not the service's) until the store has caught up to `stored` batches.
  const waitUntilStored = (stored: number) => {
    for (;;) {
      if (Atomics.load(progress, 1) !== 0) throw new StoreGaveUp('the store gave up');
      const now = Atomics.load(progress, 0);
      if (now >= stored) return;
      Atomics.wait(progress, 0, now, 1000);
    }
  };
  try {
    const outcome = importReportFile(task, (batch) => {
      waitUntilStored(sent - AHEAD + 1);
      task.port.postMessage(batch);
      sent += 1;
    });
    // The task ends only when every batch is stored: its result then describes what the transaction holds.
    if (outcome.ok) waitUntilStored(sent);
    return outcome;
  } finally {
    task.port.close();
  }
};
