import { z } from './zod';
import { webUrl } from './common';
import { describeSettings } from './setting-specs';
import {
  checkExtraArgs,
  describeExtraArgs,
  ExtraArgsAllowList,
  extraArgPattern,
  POSITIVE_INT,
  RELATIVE_GLOB,
} from './scanner-args';

/**
 * The tool-type registry: the one place that says, per tool type, what kind it is, which settings it
 * needs, what result format it writes and, for CLI tools, how it is run. The catalog lists and
 * validates from it; the scanning service runs from it.
 */
export type ToolKind = 'cli' | 'server' | 'manual';
export type ToolCategory = 'sast' | 'sca' | 'secrets' | 'iac' | 'dast' | 'container';

/** How a CLI tool is run. Placeholders: {workspace} the checked-out source, {result} the report file, {resultDir} its folder, {rules} shipped rules. */
export interface CliExecution {
  binary: string;
  /** Container image for the Kubernetes runner. */
  image: string;
  argv: string[];
  /** Where the report ends up, relative to {resultDir}; usually {result}'s own name. */
  resultFile: string;
  /** Exit codes that still mean "scan finished" (many scanners exit non-zero when they find something). */
  okExitCodes: number[];
  /** How to install the binary, said when it is missing. */
  install: string;
  /**
   * Environment the tool needs, e.g. switches that keep it offline; added to the runner's own minimal
   * environment (PATH, HOME, LANG), so nothing else of the server's environment reaches the tool.
   */
  env?: Record<string, string>;
  /**
   * The tool's working directory: the checked-out source (default), or the empty result folder for a
   * tool that would read its configuration from its working directory.
   */
  workingDir?: 'workspace' | 'resultDir';
  /** The `extra_args` a tool's settings may add (`settings.extra_args`, checked again before a run). */
  extraArgs: ExtraArgsAllowList;
}

export interface ToolType {
  id: number;
  name: string;
  /** Version of the integration; several integrations of one tool type may exist side by side. */
  version: string;
  kind: ToolKind;
  category: ToolCategory | 'any';
  /** Result format id of @bulwark/findings; `auto` detects it from the report. */
  resultFormat: string;
  description: string;
  /** Settings this type accepts; `api_token` is required for server tools and ignored otherwise. */
  settings: z.ZodObject;
  execution?: CliExecution;
}

const common = {
  scan_result_lang: z.string().max(8).optional().openapi({ example: 'EN' }),
  timeout_seconds: z.number().int().min(10).max(86400).optional().openapi({ description: 'Time limit of one scan' }),
  max_concurrent_scans: z.number().int().min(1).max(100).optional(),
  resources: z
    .object({ cpu: z.string().max(32).optional(), memory: z.string().max(32).optional() })
    .strict()
    .openapi('ToolResources', {
      description: 'Kubernetes resources of the scan Job, e.g. { "cpu": "1", "memory": "1Gi" }',
    })
    .optional(),
};

/**
 * Connection settings of server tools. cli and manual tools accept them, so one payload shape fits
 * every type, and the catalog drops them: those tools connect to nothing.
 */
export const DROPPED_LOCAL_TOOL_SETTINGS = ['url', 'auth_method', 'api_token'] as const;
const dropped = { description: 'Accepted and dropped: cli and manual tools connect to nothing' };
const droppedConnection = {
  url: z.string().max(2048).optional().openapi(dropped),
  auth_method: z.string().max(64).optional().openapi(dropped),
  api_token: z.string().max(4096).optional().openapi(dropped),
};

/** Settings stored encrypted and never returned. */
export const SECRET_TOOL_SETTINGS = ['api_token'] as const;

/** What `GET /tool-types` lists of a type's settings. */
export const toolSettingSpecs = (type: Pick<ToolType, 'kind' | 'settings'>) =>
  describeSettings(type.settings, {
    secret: SECRET_TOOL_SETTINGS,
    ignored: type.kind === 'server' ? [] : DROPPED_LOCAL_TOOL_SETTINGS,
  });

/** Settings of a CLI tool: `extra_args` only from the tool type's allow-list, each refused one named. */
const cliSettings = (name: string, allow: ExtraArgsAllowList) =>
  z
    .object({
      ...common,
      ...droppedConnection,
      extra_args: z
        .array(
          z
            .string()
            .max(512)
            .openapi({ pattern: extraArgPattern(allow) }),
        )
        .max(50)
        .superRefine((args, ctx) => {
          for (const p of checkExtraArgs(allow, args))
            ctx.addIssue({ code: 'custom', path: [p.index], message: p.problem });
        })
        .optional()
        .openapi({
          description: `Arguments added to the tool's command line, from this list only: ${describeExtraArgs(allow) || 'none'}. A value goes after "=" or as the next argument; the pattern of an item states the first form`,
        }),
    })
    .strict()
    .openapi(`${name}ToolSettings`, { description: `The settings of a tool run on its command line (${name})` });

const SEMGREP_ARGS: ExtraArgsAllowList = {
  '--severity': /^(INFO|WARNING|ERROR)$/,
  '--exclude': RELATIVE_GLOB,
  '--include': RELATIVE_GLOB,
  '--exclude-rule': /^[\w.-]{1,200}$/,
  '--timeout': /^\d{1,5}$/,
  '--timeout-threshold': /^\d{1,3}$/,
  '--max-target-bytes': POSITIVE_INT,
  '--max-memory': POSITIVE_INT,
};
const GITLEAKS_ARGS: ExtraArgsAllowList = {
  '--enable-rule': /^[\w.-]{1,200}$/,
  '--max-target-megabytes': POSITIVE_INT,
  '--max-decode-depth': /^\d{1,2}$/,
  '--log-level': /^(trace|debug|info|warn|error|fatal)$/,
};
const BANDIT_IDS = /^B\d{3}(,B\d{3})*$/;
const BANDIT_ARGS: ExtraArgsAllowList = {
  '--severity-level': /^(all|low|medium|high)$/,
  '--confidence-level': /^(all|low|medium|high)$/,
  '--skip': BANDIT_IDS,
  '-s': BANDIT_IDS,
  '--tests': BANDIT_IDS,
  '-t': BANDIT_IDS,
  '--exclude': RELATIVE_GLOB,
  '-x': RELATIVE_GLOB,
  '--ignore-nosec': true,
};
const CHECKOV_IDS = /^[A-Z][A-Z0-9_]{1,40}(,[A-Z][A-Z0-9_]{1,40})*$/;
const CHECKOV_FRAMEWORKS = /^[a-z][a-z0-9_]{1,40}(,[a-z][a-z0-9_]{1,40})*$/;
const CHECKOV_ARGS: ExtraArgsAllowList = {
  '--check': CHECKOV_IDS,
  '--skip-check': CHECKOV_IDS,
  '--framework': CHECKOV_FRAMEWORKS,
  '--skip-framework': CHECKOV_FRAMEWORKS,
  '--skip-path': RELATIVE_GLOB,
};
const ESLINT_ARGS: ExtraArgsAllowList = {
  '--ignore-pattern': RELATIVE_GLOB,
  '--quiet': true,
};
const serverSettings = z
  .object({
    ...common,
    url: webUrl().max(2048).openapi({ description: 'Address of the remote product (http or https)' }),
    auth_method: z.literal('Api Token').default('Api Token'),
    api_token: z.string().min(1).max(4096).openapi({ description: 'Stored encrypted, never returned' }),
    project_key: z.string().max(512).optional(),
  })
  .strict()
  .openapi('ServerToolSettings', { description: 'The settings of a tool on a server (SonarQube, Dependency-Track)' });
const manualSettings = z
  .object({ scan_result_lang: common.scan_result_lang, ...droppedConnection, format: z.string().max(64).optional() })
  .strict()
  .openapi('ManualToolSettings', { description: 'The settings of a tool whose results are uploaded' });

export const TOOL_TYPES: ToolType[] = [
  {
    id: 1,
    name: 'Semgrep',
    version: '1',
    kind: 'cli',
    category: 'sast',
    resultFormat: 'semgrep',
    description: 'Semgrep with the rules shipped with Bulwark (no rules registry at run time)',
    settings: cliSettings('Semgrep', SEMGREP_ARGS),
    execution: {
      binary: 'semgrep',
      image: 'semgrep/semgrep:1.180.0',
      // --no-rewrite-rule-ids: otherwise Semgrep prefixes every rule id with the rules folder's own
      // path (e.g. "srv.bulwark.rules.semgrep.python-eval"), so ids would change with the install place.
      argv: [
        'scan',
        '--config',
        '{rules}/semgrep',
        '--no-rewrite-rule-ids',
        '--json',
        '--output',
        '{result}',
        '--metrics=off',
        '--disable-version-check',
        '--quiet',
        '{workspace}',
      ],
      resultFile: 'semgrep.json',
      okExitCodes: [0, 1],
      install: 'pip install semgrep==1.180.0 (deploy/local/scanners.sh install)',
      extraArgs: SEMGREP_ARGS,
    },
  },
  {
    id: 2,
    name: 'Gitleaks',
    version: '8',
    kind: 'cli',
    category: 'secrets',
    resultFormat: 'gitleaks',
    description: 'Gitleaks secret scanning of the checked-out tree',
    settings: cliSettings('Gitleaks', GITLEAKS_ARGS),
    execution: {
      binary: 'gitleaks',
      image: 'zricethezav/gitleaks:v8.30.1',
      // --config: otherwise Gitleaks loads the scanned source's own .gitleaks.toml, which could turn
      // rules off or extend from any file; the shipped one is Gitleaks' default rules.
      argv: [
        'detect',
        '--no-git',
        '--config',
        '{rules}/gitleaks/gitleaks.toml',
        '--source',
        '{workspace}',
        '--report-format',
        'json',
        '--report-path',
        '{result}',
        '--exit-code',
        '0',
        '--no-banner',
        '--redact',
      ],
      resultFile: 'gitleaks.json',
      okExitCodes: [0],
      install: 'go install github.com/zricethezav/gitleaks/v8@v8.30.1 (deploy/local/scanners.sh install)',
      extraArgs: GITLEAKS_ARGS,
    },
  },
  {
    id: 3,
    name: 'Bandit',
    version: '1',
    kind: 'cli',
    category: 'sast',
    resultFormat: 'bandit',
    description: 'Bandit for Python code',
    settings: cliSettings('Bandit', BANDIT_ARGS),
    execution: {
      binary: 'bandit',
      image: 'ghcr.io/pycqa/bandit/bandit:latest',
      // --ini: otherwise Bandit reads a .bandit file found anywhere in the source (skips, targets, profile).
      argv: [
        '--ini',
        '{rules}/bandit/bandit.ini',
        '-r',
        '{workspace}',
        '-f',
        'json',
        '-o',
        '{result}',
        '--exit-zero',
        '-q',
      ],
      resultFile: 'bandit.json',
      okExitCodes: [0],
      install: 'pip install bandit==1.9.4 (deploy/local/scanners.sh install)',
      extraArgs: BANDIT_ARGS,
    },
  },
  {
    id: 4,
    name: 'Checkov',
    version: '3',
    kind: 'cli',
    category: 'iac',
    resultFormat: 'checkov',
    description: 'Checkov for infrastructure as code',
    settings: cliSettings('Checkov', CHECKOV_ARGS),
    execution: {
      binary: 'checkov',
      image: 'bridgecrew/checkov:3.3.30',
      // Checkov reads .checkov.yaml from the folder after a separate `-d`/`--directory` argument, from its
      // working directory and from HOME; such a file can name external checks, Python it imports. So the
      // folder is given as one `--directory=` argument, which that lookup does not see, and Checkov runs
      // in the empty result folder.
      argv: [
        '--directory={workspace}',
        '-o',
        'json',
        '--output-file-path',
        '{resultDir}',
        '--soft-fail',
        '--skip-download',
        '--skip-results-upload',
        '--quiet',
      ],
      resultFile: 'results_json.json',
      okExitCodes: [0],
      install: 'pip install checkov==3.3.30 (deploy/local/scanners.sh install)',
      extraArgs: CHECKOV_ARGS,
      // Without these Checkov asks PyPI for a newer version at start-up and may fetch the platform's
      // policy mapping: scans must reach nothing.
      env: { CKV_SKIP_PACKAGE_UPDATE_CHECK: 'true', BC_SKIP_MAPPING: 'TRUE' },
      workingDir: 'resultDir',
    },
  },
  {
    id: 5,
    name: 'ESLint security',
    version: '9',
    kind: 'cli',
    category: 'sast',
    resultFormat: 'sarif',
    description: 'ESLint with eslint-plugin-security, SARIF output',
    settings: cliSettings('Eslint', ESLINT_ARGS),
    execution: {
      binary: 'eslint',
      image: 'node:20-alpine',
      // The formatter is named by path: ESLint resolves a formatter package name from its working
      // directory, the scanned workspace, where @microsoft/eslint-formatter-sarif is not installed.
      // --no-error-on-unmatched-pattern: a repository without JavaScript is a scan with no findings,
      // not an error (exit 2, no report).
      argv: [
        '--no-config-lookup',
        '--config',
        '{rules}/eslint/eslint.config.cjs',
        '--format',
        '{rules}/eslint/sarif-formatter.cjs',
        '--no-error-on-unmatched-pattern',
        '--output-file',
        '{result}',
        '{workspace}',
      ],
      resultFile: 'eslint.sarif',
      okExitCodes: [0, 1],
      install: 'npm install (eslint, eslint-plugin-security and @microsoft/eslint-formatter-sarif come with Bulwark)',
      extraArgs: ESLINT_ARGS,
    },
  },
  {
    id: 10,
    name: 'SonarQube',
    version: '10',
    kind: 'server',
    category: 'sast',
    resultFormat: 'sonarqube',
    description: 'A SonarQube server reached by url and api_token',
    settings: serverSettings,
  },
  {
    id: 11,
    name: 'Dependency-Track',
    version: '4',
    kind: 'server',
    category: 'sca',
    resultFormat: 'cyclonedx',
    description: 'A Dependency-Track server reached by url and api_token',
    settings: serverSettings,
  },
  {
    id: 20,
    name: 'Manual',
    version: '1',
    kind: 'manual',
    category: 'any',
    resultFormat: 'auto',
    description: 'Results are uploaded (POST /api/v1/check/{check_id}/results); the format is detected or named',
    settings: manualSettings,
  },
];

export function toolType(id: number): ToolType | undefined {
  return TOOL_TYPES.find((t) => t.id === id);
}
