/** What the decoration suites share: hostile findings, and waiting for what a platform received. */

export const HOSTILE_TITLE = 'SQLi [click](https://evil.example) @admin <img src=x onerror=alert(1)>';
export const HOSTILE_PATH = 'src/<b>db</b>.py';

/** Semgrep-like SARIF with one high finding a line, each titled with a hostile text. */
export function hostileReport(lines: number[], file = HOSTILE_PATH): string {
  const rule = 'python.sqli';
  return JSON.stringify({
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'Semgrep OSS',
            rules: [
              {
                id: rule,
                name: rule,
                shortDescription: { text: HOSTILE_TITLE },
                defaultConfiguration: { level: 'error' },
                properties: { 'security-severity': '7.5' },
              },
            ],
          },
        },
        results: lines.map((line) => ({
          ruleId: rule,
          level: 'error',
          message: { text: HOSTILE_TITLE },
          locations: [
            {
              physicalLocation: {
                artifactLocation: { uri: file },
                region: { startLine: line, snippet: { text: `query(x${line})` } },
              },
            },
          ],
        })),
      },
    ],
  });
}

/** Waits until `done` holds: the platform hears of a verdict after ingestion, from a periodic task. */
export async function until(what: string, done: () => boolean, timeoutMs = 30000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`never: ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Waits until the comment carrying `marker` among `comments()` satisfies `done`; answers it. */
export async function commentWhen<C extends { body: string }>(
  comments: () => C[],
  marker: string,
  done: (body: string) => boolean,
): Promise<C> {
  let found: C | undefined;
  await until(
    `a comment as expected, among ${JSON.stringify(comments())}`,
    () => {
      found = comments().find((c) => c.body.includes(marker) && done(c.body));
      return found !== undefined;
    },
    60000,
  );
  return found as C;
}
