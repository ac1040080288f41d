/**
 * The `extra_args` a tool type accepts: flag name → `true` for a flag without a value, or the shape
 * its value must have. A value is given as the next argument or after `=` (`--severity ERROR`,
 * `--severity=ERROR`). Anything else, positional arguments included, is refused: an argument must
 * never load code, configuration, rules or plugins, read or write a file, or widen what is scanned.
 */
export type ExtraArgsAllowList = Record<string, true | RegExp>;

/** A path or glob inside the workspace, relative, without `..`: for excludes, which only narrow a scan. */
export const RELATIVE_GLOB = /^(?!\/)(?!(.*\/)?\.\.(\/|$))[\w.*?{}\[\],/@+-]{1,200}$/;
export const POSITIVE_INT = /^[1-9]\d{0,6}$/;

export interface ExtraArgProblem {
  /** Index in the `extra_args` array. */
  index: number;
  problem: string;
}

/** The allow-list in words, e.g. for the settings' documentation. */
export const describeExtraArgs = (allow: ExtraArgsAllowList) =>
  Object.entries(allow)
    .map(([flag, shape]) => (shape === true ? flag : `${flag} <${shape.source}>`))
    .join(', ');

/**
 * One argument the allow-list takes on its own, as a pattern: a flag without a value, or
 * `--flag=value` (not starting with "-"). What the document states of each item: the form of a value
 * in the next argument (`--severity ERROR`, `-x path`) depends on its neighbour, which no item's
 * schema can say, so it is accepted without being stated.
 */
export function extraArgPattern(allow: ExtraArgsAllowList): string {
  const forms = Object.entries(allow).flatMap(([flag, shape]) => {
    if (shape === true) return [escaped(flag)];
    if (!flag.startsWith('--')) return [];
    const { source } = shape;
    // Embedded after the flag, a start anchor inside the shape would no longer mean the value's start.
    if (!source.startsWith('^') || !source.endsWith('$') || /[^\\[]\^/.test(source))
      throw new Error(
        `extraArgPattern: ${flag}'s shape must be anchored at both ends, and at its start only once: ${source}`,
      );
    return [`${escaped(flag)}=(?!-)(${source.slice(1, -1)})`];
  });
  return forms.length > 0 ? `^(${forms.join('|')})$` : '^(?!)$';
}

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The problems of `args` under `allow`, one per refused argument; none when every argument is allowed. */
export function checkExtraArgs(allow: ExtraArgsAllowList, args: readonly string[]): ExtraArgProblem[] {
  const problems: ExtraArgProblem[] = [];
  const allowed =
    Object.keys(allow).length > 0 ? `allowed: ${Object.keys(allow).join(', ')}` : 'this tool type accepts none';
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const eq = arg.indexOf('=');
    const flag = arg.startsWith('--') && eq > 0 ? arg.slice(0, eq) : arg;
    const shape = Object.prototype.hasOwnProperty.call(allow, flag) ? allow[flag] : undefined;
    if (shape === undefined) {
      problems.push({ index: i, problem: `is not an allowed argument (${allowed})` });
      // The refused flag's own value is not named a second time.
      if (arg.startsWith('-') && flag === arg && eq < 0 && args[i + 1] !== undefined && !args[i + 1].startsWith('-'))
        i++;
      continue;
    }
    if (shape === true) {
      if (flag !== arg) problems.push({ index: i, problem: `${flag} takes no value` });
      continue;
    }
    const flagIndex = i;
    const value = flag !== arg ? arg.slice(eq + 1) : args[++i];
    // A value that looks like a flag would be parsed as one by the tool.
    if (value === undefined || value.startsWith('-') || !shape.test(value)) {
      problems.push({
        index: value === undefined ? flagIndex : i,
        problem: `${flag} needs a value matching ${shape.source}`,
      });
    }
  }
  return problems;
}
