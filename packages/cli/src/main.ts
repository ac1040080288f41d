#!/usr/bin/env node
import { countReport, Finding, FORMATS, importReport, ReportParseError, SEVERITIES } from '@bulwark/findings';
import { issuesCommand } from './commands/issues';
import { gateCommand, runCommand, uploadCommand } from './commands/pipeline';
import { CliError, EXIT, usageError } from './errors';

const USAGE = `usage:
  bulwark upload --check <id> <report> [--format <id>] [--pull-request <n>] [--wait] [--fail-on-gate] [--junit <file>] [--stop-on-cancel] [--timeout <s>]
  bulwark run (--check <id> | --layer <id>) [--wait] [--fail-on-gate] [--junit <file>] [--stop-on-cancel] [--timeout <s>]
  bulwark gate --scan-result <id> [--junit <file>] [--timeout <s>]
  bulwark issues --project <code> [--severity <s>]... [--status <id>]... [--layer <id>] [--scan <id>] [--format json|csv|markdown|sarif] [--max <n>]
  bulwark parse <file> [--format <id>] [--json] [--count]
  bulwark formats

The API commands read BULWARK_URL and BULWARK_TOKEN (or --url, --token).
Exit codes: 0 done (gate passed), 1 quality gate failed, 2 usage or input error (a refused token too),
3 server or network error (a scan that failed or was stopped too), 130 interrupted.`;

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
      if (!value) throw usageError('--format needs a format id (see "bulwark formats")');
      out.format = value;
    } else if (a.startsWith('--')) throw usageError(`unknown option ${a}`);
    else rest.push(a);
  }
  if (rest.length !== 1) throw usageError('parse needs exactly one file');
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
  const where = f.filePath
    ? `${f.filePath}${f.startLine ? `:${f.startLine}` : ''}`
    : (f.endpoints[0]?.url ?? f.library?.name ?? '');
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

const API_COMMANDS: Record<string, (args: string[], env: NodeJS.ProcessEnv) => Promise<number>> = {
  upload: uploadCommand,
  run: runCommand,
  gate: gateCommand,
  issues: issuesCommand,
};

async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
  const api = command !== undefined && Object.hasOwn(API_COMMANDS, command) ? API_COMMANDS[command] : undefined;
  try {
    if (api) return await api(args, process.env);
    if (command === 'parse') parseCommand(args);
    else if (command === 'formats')
      writeLines(FORMATS.map((f) => `${f.id.padEnd(18)} ${f.title} (tested with ${f.testedWith})`));
    else if (command === '--help' || command === '-h' || command === 'help') process.stdout.write(`${USAGE}\n`);
    else throw usageError(command ? `unknown command "${command}"` : 'missing command');
    return EXIT.ok;
  } catch (e) {
    if (e instanceof CliError) {
      // Usage is printed for a mistyped command line, not for an API command the server refused.
      process.stderr.write(`bulwark: ${e.message}\n${e.exitCode === EXIT.usage && !api ? `${USAGE}\n` : ''}`);
      return e.exitCode;
    }
    if (e instanceof ReportParseError) {
      process.stderr.write(`bulwark: cannot parse ${e.file} (format: ${e.format ?? 'not detected'}): ${e.reason}\n`);
      return EXIT.usage;
    }
    // A fault of the CLI itself: not a gate verdict, so never exit 1.
    process.stderr.write(`bulwark: internal error: ${(e as Error).stack ?? String(e)}\n`);
    return EXIT.server;
  }
}

// A closed pipe (bulwark parse x | head) is not an error.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(0);
  throw e;
});
void main(process.argv.slice(2)).then((code) => (process.exitCode = code));
