#!/usr/bin/env node
import { countReport, Finding, FORMATS, importReport, ReportParseError, SEVERITIES } from '@bulwark/findings';

const USAGE = `usage:
  bulwark parse <file> [--format <id>] [--json] [--count]
  bulwark formats`;

/** Exit codes: 0 success, 1 internal error, 2 bad usage or input that cannot be parsed. */
class UsageError extends Error {}

interface ParseArgs {
  file: string;
  format?: string;
  json: boolean;
  count: boolean;
}

function parseArgs(args: string[]): ParseArgs {
  const out: ParseArgs = { file: '', json: false, count: false };
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--json') out.json = true;
    else if (a === '--count') out.count = true;
    else if (a === '--format' || a.startsWith('--format=')) {
      const value = a === '--format' ? args[++i] : a.slice('--format='.length);
      if (!value) throw new UsageError('--format needs a format id (see "bulwark formats")');
      out.format = value;
    } else if (a.startsWith('--')) throw new UsageError(`unknown option ${a}`);
    else rest.push(a);
  }
  if (rest.length !== 1) throw new UsageError('parse needs exactly one file');
  out.file = rest[0];
  return out;
}

/** Writes in large pieces: one write per finding is slow for reports with 100,000 of them. */
function writeLines(lines: Iterable<string>): void {
  let buf = '';
  for (const l of lines) {
    buf += `${l}\n`;
    if (buf.length > 1 << 16) {
      process.stdout.write(buf);
      buf = '';
    }
  }
  if (buf) process.stdout.write(buf);
}

function human(f: Finding): string {
  const where = f.filePath ? `${f.filePath}${f.startLine ? `:${f.startLine}` : ''}` : f.endpoints[0]?.url ?? f.library?.name ?? '';
  return [f.severity.toUpperCase().padEnd(8), f.tool, f.ruleId ?? '-', where, f.title].join('  ');
}

function summary(file: string, format: string, findings: Finding[]): string {
  const bySeverity = SEVERITIES.map((s) => `${s} ${findings.filter((f) => f.severity === s).length}`).join(', ');
  const records = findings.reduce((n, f) => n + f.occurrences, 0);
  return `${file}: ${format}, ${findings.length} findings from ${records} records (${bySeverity})`;
}

function parseCommand(args: string[]): void {
  const opts = parseArgs(args);
  if (opts.count) {
    // Streams: the same count as importReport gives, without keeping every finding in memory.
    process.stdout.write(`${countReport(opts.file, { format: opts.format }).count}\n`);
    return;
  }
  const { format, findings } = importReport(opts.file, { format: opts.format });
  if (opts.json) {
    writeLines(findings.map((f) => JSON.stringify(f)));
    // The summary goes to stderr so that stdout stays valid JSON lines.
    process.stderr.write(`${summary(opts.file, format, findings)}\n`);
    return;
  }
  writeLines(findings.map(human));
  process.stdout.write(`${summary(opts.file, format, findings)}\n`);
}

function main(argv: string[]): number {
  const [command, ...args] = argv;
  try {
    if (command === 'parse') parseCommand(args);
    else if (command === 'formats') writeLines(FORMATS.map((f) => `${f.id.padEnd(18)} ${f.title}`));
    else if (command === '--help' || command === '-h' || command === 'help') process.stdout.write(`${USAGE}\n`);
    else throw new UsageError(command ? `unknown command "${command}"` : 'missing command');
    return 0;
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`bulwark: ${e.message}\n${USAGE}\n`);
      return 2;
    }
    if (e instanceof ReportParseError) {
      process.stderr.write(`bulwark: cannot parse ${e.file} (format: ${e.format ?? 'not detected'}): ${e.reason}\n`);
      return 2;
    }
    process.stderr.write(`bulwark: internal error: ${(e as Error).stack ?? String(e)}\n`);
    return 1;
  }
}

// A closed pipe (bulwark parse x | head) is not an error.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(0);
  throw e;
});
process.exitCode = main(process.argv.slice(2));
