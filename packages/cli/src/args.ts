import { parseArgs, ParseArgsConfig } from 'node:util';
import { usageError } from './errors';

/** Node's parseArgs, with its complaints and a wrong count of arguments as usage errors (exit 2). */
export function parseFlags<T extends ParseArgsConfig>(config: T, positionals = 0): ReturnType<typeof parseArgs<T>> {
  let parsed: ReturnType<typeof parseArgs<T>>;
  try {
    parsed = parseArgs(config);
  } catch (err) {
    throw usageError((err as Error).message);
  }
  if (parsed.positionals.length !== positionals)
    throw usageError(`expected ${positionals} argument(s), got ${parsed.positionals.length}`);
  return parsed;
}
