import { Writable } from 'node:stream';
import winston from 'winston';
import { currentContext } from './context';
import { traceIdOf } from './observability/tracing';

export type Logger = winston.Logger;

const addWorkIds = winston.format((info) => {
  const ctx = currentContext();
  if (ctx?.requestId && info.requestId === undefined) info.requestId = ctx.requestId;
  const traceId = traceIdOf(ctx?.span);
  if (traceId && info.traceId === undefined) info.traceId = traceId;
  return info;
});

let root: winston.Logger | undefined;

/** The process logger: JSON lines on stdout, each carrying the current request id and trace id. */
export function rootLogger(): winston.Logger {
  if (!root) {
    root = winston.createLogger({
      level: process.env.LOG_LEVEL ?? 'info',
      format: winston.format.combine(
        winston.format.timestamp(),
        addWorkIds(),
        winston.format.errors({ stack: true }),
        winston.format.json(),
      ),
      transports: [new winston.transports.Console()],
    });
  }
  return root;
}

export function createLogger(component: string): Logger {
  return rootLogger().child({ component });
}

/**
 * Hands every log line of this process to `onLine`, at every level, while the console keeps its own
 * level. For tests that prove what is never logged; returns the function that stops the capture.
 */
export function captureLogLines(onLine: (line: string) => void): () => void {
  const logger = rootLogger();
  const previous = logger.level;
  const consoles = logger.transports.filter((t) => t instanceof winston.transports.Console);
  const consoleLevels = consoles.map((t) => t.level);
  for (const t of consoles) t.level ??= previous;
  const sink = new Writable({
    objectMode: true,
    write(info: Record<string | symbol, unknown>, _enc, done) {
      onLine(String(info[Symbol.for('message')]));
      done();
    },
  });
  const transport = new winston.transports.Stream({ stream: sink, level: 'silly' });
  logger.add(transport);
  logger.level = 'silly';
  return () => {
    logger.remove(transport);
    logger.level = previous;
    consoles.forEach((t, i) => (t.level = consoleLevels[i]));
  };
}
