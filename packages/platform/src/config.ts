import { z } from 'zod';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Reads the environment once through a schema whose keys are variable names. Every bad variable is
 * named in one error, so a misconfigured deployment fails at start with a message an operator can act on.
 */
export function loadConfig<S extends z.ZodObject>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const input: Record<string, string | undefined> = {};
  for (const key of Object.keys(schema.shape)) {
    const value = env[key];
    input[key] = value === '' ? undefined : value;
  }
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`));
  }
  return parsed.data;
}

type Reader = (env: NodeJS.ProcessEnv) => unknown;

/**
 * Runs every reader even when one fails, so one ConfigError names every bad variable of them all; a
 * problem two readers share (a variable both read) is named once.
 */
export function readConfigs<R extends Record<string, Reader>>(
  env: NodeJS.ProcessEnv,
  readers: R,
): { [K in keyof R]: ReturnType<R[K]> } {
  const problems: string[] = [];
  const values: Record<string, unknown> = {};
  for (const [key, read] of Object.entries(readers)) {
    try {
      values[key] = read(env);
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      problems.push(...err.problems);
    }
  }
  if (problems.length > 0) throw new ConfigError([...new Set(problems)]);
  return values as { [K in keyof R]: ReturnType<R[K]> };
}

/** Environment values are strings: these read the common shapes. */
export const env = {
  port: (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback),
  int: (fallback: number, min = 0) => z.coerce.number().int().min(min).default(fallback),
  bool: (fallback: boolean) =>
    z
      .enum(['true', 'false', '1', '0', 'yes', 'no'])
      .default(fallback ? 'true' : 'false')
      .transform((v) => v === 'true' || v === '1' || v === 'yes'),
  list: () =>
    z
      .string()
      .optional()
      .transform((v) =>
        v
          ? v
              .split(',')
              .map((s) => s.trim())
              .filter(Boolean)
          : [],
      ),
  url: () => z.string().url().optional(),
};

/** Fails fast when a required piece of configuration is missing in a mode that needs it. */
export function requireSetting(value: string | undefined, name: string, why: string): string {
  if (!value) throw new ConfigError([`${name}: required ${why}`]);
  return value;
}
