import fs from 'node:fs';
import path from 'node:path';

export const FIXTURES = path.resolve(__dirname, 'fixtures');
/** The vulnerable fixtures whose known findings each scanner must still report in the hostile repository. */
const FIXTURE_FOLDERS = ['python-app', 'secrets-app', 'terraform-app', 'node-app'];

/** What the hostile code is pointed at: the test's marker folder, a secret file outside the workspace, a loopback port. */
export interface HostileTargets {
  /** Writable by every user of the host: only the sandbox keeps code from writing here. */
  markerDir: string;
  /** Stands for the data directory's secrets; readable by every user of the host. */
  secretFile: string;
  port: number;
}

/** A rule id the repository's own scanner configuration adds: it must never show in a report. */
export const HOSTILE_RULE = 'bulwark-hostile-rule';

const python = (t: HostileTargets, name: string) => `import os, socket
notes = []
try:
    with open(os.path.join(${JSON.stringify(t.markerDir)}, ${JSON.stringify(`${name}-ran`)}), 'w') as f:
        f.write(repr(dict(os.environ)))
except Exception as e:
    notes.append(repr(e))
try:
    notes.append(open(${JSON.stringify(t.secretFile)}).read())
except Exception as e:
    notes.append(repr(e))
try:
    socket.create_connection(('127.0.0.1', ${t.port}), timeout=3).sendall(b'hostile')
except Exception as e:
    notes.append(repr(e))
print('hostile code ran', notes, dict(os.environ))
`;

const javascript = (t: HostileTargets, name: string) => `const fs = require('fs');
const notes = [];
try { fs.writeFileSync(${JSON.stringify(path.join(t.markerDir, `${name}-ran`))}, JSON.stringify(process.env)); } catch (e) { notes.push(String(e)); }
try { notes.push(fs.readFileSync(${JSON.stringify(t.secretFile)}, 'utf8')); } catch (e) { notes.push(String(e)); }
require('net').connect(${t.port}, '127.0.0.1').on('error', () => undefined).end('hostile');
console.log('hostile code ran', notes, process.env);
module.exports = [];
`;

/**
 * A repository that tries, through every shipped scanner's configuration files, to run its own code,
 * to turn the scanners' rules off, and (with `links`) to read a file outside the checkout through
 * symbolic links. Its code would write a marker, read the secret and connect to the port. It also
 * holds the vulnerable fixtures, so the known findings show whether the repository's settings were
 * ignored.
 */
export function writeHostileRepository(dir: string, t: HostileTargets, opts: { links: boolean }): void {
  for (const folder of FIXTURE_FOLDERS) fs.cpSync(path.join(FIXTURES, folder), dir, { recursive: true });
  const expected = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'expected.json'), 'utf8')) as Record<
    string,
    { findings: { rule: string }[] }
  >;
  const banditRules = [...new Set(expected.bandit.findings.map((f) => /B\d{3}/.exec(f.rule)![0]))].join(',');
  const files: Record<string, string> = {
    // Checkov: external checks are Python it imports.
    '.checkov.yaml': 'external-checks-dir:\n  - checks\n  - ./checks\nskip-check:\n  - CKV_AWS_20\n',
    '.checkov.yml': 'external-checks-dir:\n  - checks\n',
    'checks/__init__.py': python(t, 'checkov-init'),
    'checks/hostile_check.py': python(t, 'checkov-check'),
    // Gitleaks: a configuration that allow-lists every path and replaces the rules.
    '.gitleaks.toml': `title = "hostile"\n[[rules]]\nid = "${HOSTILE_RULE}"\nregex = '''.'''\n[allowlist]\npaths = ['''.*''']\n`,
    // Bandit: skip every test that finds something here.
    '.bandit': `[bandit]\nskips = ${banditRules}\nexclude = app\n`,
    'app/.bandit': `[bandit]\nskips = ${banditRules}\n`,
    // Semgrep: rules files a default lookup would find.
    '.semgrep.yml': `rules:\n  - id: ${HOSTILE_RULE}\n    pattern-regex: .\n    message: hostile\n    languages: [generic]\n    severity: ERROR\n`,
    '.semgrep/settings.yml': 'has_shown_metrics_notification: true\nanonymous_user_id: hostile\n',
    // ESLint: configuration files are JavaScript it would run.
    'eslint.config.js': javascript(t, 'eslint-flat'),
    'eslint.config.mjs': javascript(t, 'eslint-flat-mjs')
      .replace(
        "const fs = require('fs');",
        "import fs from 'fs'; import { createRequire } from 'module'; const require = createRequire(import.meta.url);",
      )
      .replace('module.exports = [];', 'export default [];'),
    '.eslintrc.js': javascript(t, 'eslintrc'),
    // Python start-up hooks, should a tool run Python from the checkout.
    'sitecustomize.py': python(t, 'sitecustomize'),
    'usercustomize.py': python(t, 'usercustomize'),
    'conftest.py': python(t, 'conftest'),
  };
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
  if (opts.links) {
    // Scanners read linked files and quote their lines in reports: a secret outside the checkout would leak.
    fs.symlinkSync(t.secretFile, path.join(dir, 'app', 'leaked_settings.py'));
    fs.symlinkSync(t.secretFile, path.join(dir, 'src', 'leaked.js'));
    fs.symlinkSync(path.dirname(t.secretFile), path.join(dir, 'secrets-dir'));
  }
}

/** The marker files hostile code managed to write. */
export const markersIn = (markerDir: string) => fs.readdirSync(markerDir);
