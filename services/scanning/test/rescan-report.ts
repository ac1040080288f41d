/**
 * One result of {@link rescanReport}: finding `n` at `line`, in a file of its own under `dir` unless
 * `file` names one (the results of one file share a fingerprint group: their snippets differ only in digits).
 */
export interface RescanResult {
  n: number;
  line: number;
  file?: string;
}

/**
 * A SARIF report whose run start time every finding carries (`detectedAt`), as scanners write one per
 * run: the same results in two of them are the same findings in new bytes. A result's snippet keeps
 * its issue when its line moves.
 */
export function rescanReport(started: string, results: RescanResult[], dir = 'src'): string {
  return JSON.stringify({
    version: '2.1.0',
    runs: [
      {
        tool: { driver: { name: 'CodeQL', rules: [{ id: 'py/path-injection' }] } },
        invocations: [{ executionSuccessful: true, startTimeUtc: started }],
        results: results.map(({ n, line, file }) => ({
          ruleId: 'py/path-injection',
          level: n % 2 ? 'error' : 'warning',
          message: { text: `Path from user input (${n})` },
          locations: [
            {
              physicalLocation: {
                artifactLocation: { uri: `${dir}/${file ?? `f${n}.py`}` },
                region: { startLine: line, snippet: { text: `open(base + name${n})` } },
              },
            },
          ],
        })),
      },
    ],
  });
}
