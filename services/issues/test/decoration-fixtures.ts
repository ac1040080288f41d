import { expect } from 'chai';
import { type Api, expectStatus } from '@bulwark/testkit';

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

/** A contract server as the refusal case drives it. */
interface RefusablePlatform {
  refusing: boolean;
  requests: string[];
}

/**
 * A platform that refuses: the upload's scan completes with its pull request and the layer's gate
 * fails as without decoration, the summary keeps what it said before (`before`); once the platform
 * answers again the summary says `after` (still one comment) and the head commit gets `state`.
 */
export async function refusedThenPosted(
  api: Api,
  platform: RefusablePlatform,
  c: {
    upload: () => Promise<string>;
    layerId: string;
    pullRequest: { number: number; head_sha: string; base_branch: string };
    summaries: () => { body: string }[];
    before: string;
    after: string[];
    statusOfHead: () => { state: string } | undefined;
    state: string;
  },
): Promise<void> {
  platform.refusing = true;
  const refusedFrom = platform.requests.length;
  const scan = await c.upload();
  await until('a refused request', () => platform.requests.length > refusedFrom);
  const result = expectStatus(await api.get(`/api/v1/scan-result/${scan}`), 200);
  expect(result.state).to.equal('completed');
  expect(result.pull_request).to.deep.equal(c.pullRequest);
  const gate = expectStatus(await api.get(`/api/v1/quality-gate/layer/${c.layerId}`), 200);
  expect(JSON.stringify(gate)).to.contain('failed');
  expect(c.summaries().map((s) => s.body.includes(c.before))).to.deep.equal([true]);
  platform.refusing = false;
  await until('the summary once the platform is back', () =>
    c.summaries().some((s) => c.after.every((text) => s.body.includes(text))),
  );
  expect(c.summaries()).to.have.length(1);
  await until('the status once the platform is back', () => c.statusOfHead() !== undefined);
  expect(c.statusOfHead()).to.deep.include({ state: c.state });
}

/**
 * The summary of a request that brought two hostile findings and fixed the base's one: the counts,
 * the base's issue listed as fixed, the console link, and nothing the hostile texts tried to add.
 */
export function expectTwoNewOneFixedEscaped(body: string, projectCode: string): void {
  expect(body).to.contain('**2 new issue(s)**');
  expect(body).to.contain('**1 fixed issue(s)**');
  expect(body).to.contain('src/base.py:50');
  expect(body).not.to.contain('[click](https://evil');
  expect(body).not.to.match(/[^\\]<(img|b)\b/);
  expect(body).not.to.contain('@admin');
  expect(body).to.contain(`/projects/${projectCode}`);
}
