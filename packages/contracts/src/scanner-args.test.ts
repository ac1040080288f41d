import { expect } from 'chai';
import { checkExtraArgs, extraArgPattern, toolType, TOOL_TYPES } from './index';

const allowOf = (name: string) => TOOL_TYPES.find((t) => t.name === name)!.execution!.extraArgs;

describe('extra_args allow-lists of the CLI tool types', () => {
  const accepted: [string, string[]][] = [
    [
      'Semgrep',
      [
        '--severity',
        'ERROR',
        '--severity=WARNING',
        '--exclude',
        'tests/**',
        '--exclude-rule',
        'python-eval-exec-dynamic',
        '--timeout',
        '30',
      ],
    ],
    ['Gitleaks', ['--max-target-megabytes', '5', '--enable-rule=aws-access-token', '--log-level', 'warn']],
    ['Bandit', ['--severity-level', 'medium', '-s', 'B101,B404', '--exclude', 'app/tests', '--ignore-nosec']],
    ['Checkov', ['--framework', 'terraform', '--skip-check', 'CKV_AWS_20,CKV2_AWS_6', '--skip-path=modules/legacy']],
    ['ESLint security', ['--quiet', '--ignore-pattern', 'vendor/**']],
    ['Semgrep', []],
  ];
  for (const [tool, args] of accepted) {
    it(`${tool} accepts ${JSON.stringify(args)}`, () => {
      expect(checkExtraArgs(allowOf(tool), args)).to.deep.equal([]);
    });
  }

  // Each refused case: the index named, and why it is dangerous or malformed.
  const refused: [string, string[], number, string][] = [
    ['Checkov', ['--external-checks-dir', 'checks'], 0, 'imports Python from a folder'],
    ['Checkov', ['--external-checks-dir=checks'], 0, 'the same in = form'],
    ['Checkov', ['--config-file', '.checkov.yaml'], 0, 'a configuration file'],
    ['Checkov', ['--external-checks'], 0, 'an abbreviation argparse would expand'],
    ['Semgrep', ['--severity', 'ERROR', '--config', 'rules.yml'], 2, 'rules from the repository'],
    ['Semgrep', ['--severity', 'LOUD'], 1, 'a value of the wrong shape'],
    ['Semgrep', ['--severity'], 0, 'a flag without its value'],
    ['Semgrep', ['--exclude', '--config=x'], 1, 'a value that is a flag'],
    ['Semgrep', ['--exclude', '../../etc'], 1, 'a path leaving the workspace'],
    ['Semgrep', ['--exclude', '/etc/passwd'], 1, 'an absolute path'],
    ['Semgrep', ['/etc'], 0, 'a positional argument: another scan target'],
    ['Gitleaks', ['--config', '/tmp/x.toml'], 0, 'a configuration file'],
    ['Gitleaks', ['--report-path', '/tmp/out.json'], 0, 'writes a file'],
    ['Gitleaks', ['--gitleaks-ignore-path', 'x'], 0, 'reads a file'],
    ['Bandit', ['-c', 'bandit.yaml'], 0, 'a configuration file'],
    ['Bandit', ['--ini', '.bandit'], 0, 'a settings file'],
    ['Bandit', ['-o', '/tmp/x'], 0, 'writes a file'],
    ['Bandit', ['--ignore-nosec=yes'], 0, 'a value for a flag without one'],
    ['ESLint security', ['--config', 'eslint.config.js'], 0, 'JavaScript from the repository'],
    ['ESLint security', ['--plugin', 'evil'], 0, 'a plugin'],
    ['ESLint security', ['--rulesdir', 'rules'], 0, 'rules from the repository'],
    ['ESLint security', ['--resolve-plugins-relative-to', '.'], 0, 'where plugins come from'],
    ['ESLint security', ['--output-file', '/tmp/x'], 0, 'writes a file'],
    ['Gitleaks', ['__proto__'], 0, 'an inherited property name'],
  ];
  for (const [tool, args, index, why] of refused) {
    it(`${tool} refuses ${JSON.stringify(args)} at [${index}] (${why})`, () => {
      const problems = checkExtraArgs(allowOf(tool), args);
      expect(problems.map((p) => p.index)).to.deep.equal([index]);
    });
  }

  it('tool settings name the refused argument as settings.extra_args[i] in the zod issue path', () => {
    const parsed = toolType(1)!.settings.safeParse({ extra_args: ['--severity', 'ERROR', '--config', 'x'] });
    expect(parsed.success).to.equal(false);
    expect(parsed.error!.issues.map((i) => i.path)).to.deep.equal([['extra_args', 2]]);
    expect(parsed.error!.issues[0].message).to.contain('is not an allowed argument').and.contain('--severity');
  });

  it('every allowed value shape refuses a leading dash, .. segments and absolute paths where it takes paths', () => {
    for (const t of TOOL_TYPES.filter((x) => x.execution)) {
      for (const [flag, shape] of Object.entries(t.execution!.extraArgs)) {
        if (shape === true) continue;
        expect(checkExtraArgs(t.execution!.extraArgs, [flag, '-x']), `${t.name} ${flag}`).to.have.length(1);
        expect(checkExtraArgs(t.execution!.extraArgs, [flag, '../x']), `${t.name} ${flag}`).to.have.length(1);
        expect(checkExtraArgs(t.execution!.extraArgs, [flag, '/x']), `${t.name} ${flag}`).to.have.length(1);
      }
    }
  });

  it('states each argument it takes alone as a pattern, and only arguments it takes', () => {
    const items = ['--severity=ERROR', '--exclude=tests/**', '--quiet', '--ignore-nosec', '--skip-path=modules/legacy'];
    const others = ['--severity', 'ERROR', '--exclude=../x', '--exclude=/x', '--exclude=-x', '--exclude=a/../b', '-s'];
    const others2 = ['--timeout=-1', '--config=x', '--quiet=1', 'x', '--exclude=..', '--exclude=a/..'];
    for (const t of TOOL_TYPES.filter((x) => x.execution)) {
      const pattern = new RegExp(extraArgPattern(t.execution!.extraArgs));
      for (const arg of [...items, ...others, ...others2]) {
        if (pattern.test(arg))
          expect(checkExtraArgs(t.execution!.extraArgs, [arg]), `${t.name} ${arg}`).to.deep.equal([]);
      }
      for (const arg of [...others, ...others2]) expect(pattern.test(arg), `${t.name} ${arg}`).to.equal(false);
    }
    expect(new RegExp(extraArgPattern(allowOf('Semgrep'))).test('--severity=ERROR')).to.equal(true);
    expect(new RegExp(extraArgPattern(allowOf('Bandit'))).test('--ignore-nosec')).to.equal(true);
    expect(new RegExp(extraArgPattern(allowOf('Checkov'))).test('--skip-path=modules/legacy')).to.equal(true);
  });
});
