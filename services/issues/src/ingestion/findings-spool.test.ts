import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { FindingsSpool } from './findings-spool';

async function* chunksOf(chunks: string[][]): AsyncGenerator<{ findingsJson: string[] }> {
  for (const findingsJson of chunks) yield { findingsJson };
}

async function readAll(spool: FindingsSpool): Promise<string[][]> {
  const out: string[][] = [];
  for await (const chunk of spool.chunks()) out.push(chunk);
  return out;
}

describe('issues ingestion: the findings spool', () => {
  it('gives back every chunk in order, lines longer than a read and text holding newlines included', async () => {
    // One chunk far larger than the file stream's 64 KiB reads, so a line spans many of them.
    const large = Array.from({ length: 2000 }, (_, i) =>
      JSON.stringify({ title: `finding ${i}`, text: 'x'.repeat(80) }),
    );
    const chunks = [['{"title":"a\\nb"}', 'line one\nline two'], large, ['{"title":"last"}']];
    const spool = await FindingsSpool.fill(chunksOf(chunks));
    try {
      expect(await readAll(spool)).to.deep.equal(chunks);
    } finally {
      await spool.remove();
    }
  });

  it('removes the spools of processes that are gone and keeps those of running ones', async () => {
    // A process that has exited: its id names a spool nobody will remove.
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
    const stale = fs.mkdtempSync(path.join(os.tmpdir(), `bulwark-findings-${gone}-`));
    const running = fs.mkdtempSync(path.join(os.tmpdir(), `bulwark-findings-${process.ppid}-`));
    const own = await FindingsSpool.fill(chunksOf([['{}']]));
    try {
      expect(await FindingsSpool.removeStale()).to.be.at.least(1);
      expect(fs.existsSync(stale)).to.equal(false);
      expect(fs.existsSync(running)).to.equal(true);
      expect(await readAll(own)).to.deep.equal([['{}']]);
    } finally {
      fs.rmSync(running, { recursive: true, force: true });
      await own.remove();
    }
  });
});
