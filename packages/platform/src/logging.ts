import winston from 'winston';
import { currentRequestId } from './context';

export type Logger = winston.Logger;

const addRequestId = winston.format((info) => {
  const requestId = currentRequestId();
  if (requestId && info.requestId === undefined) info.requestId = requestId;
  return info;
});

let root: winston.Logger | undefined;

/** The process logger: JSON lines on stdout, each carrying the current request id. */
export function rootLogger(): winston.Logger {
  if (!root) {
    root = winston.createLogger({
      level: process.env.LOG_LEVEL ?? 'info',
      format: winston.format.combine(winston.format.timestamp(), addRequestId(), winston.format.errors({ stack: true }), winston.format.json()),
      transports: [new winston.transports.Console()],
    });
  }
  return root;
}

export function createLogger(component: string): Logger {
  return rootLogger().child({ component });
}
