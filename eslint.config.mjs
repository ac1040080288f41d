// ESLint for the project's own TypeScript: typescript-eslint's recommended type-checked rules. Sources are
// typed through their workspace's tsconfig.json (found by the project service); tests and benchmarks
// through tsconfig.tests.json, the project that type-checks them. CI lints everything not ignored below
// (package.json's "lint" script, scripts/lint.mjs: the tests in one process, the rest in another).
import tseslint from 'typescript-eslint';

/** What tsconfig.tests.json type-checks. */
export const tests = [
  'packages/*/test/**/*.ts',
  'services/*/test/**/*.ts',
  'gateway/test/**/*.ts',
  'console/test/**/*.ts',
  '**/src/**/*.test.ts',
  'bench/**/*.ts',
  'fuzz/**/*.ts',
];

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      '**/gen/**',
      '**/test/fixtures/**',
      // The ESLint configuration Bulwark's scanner runs on scanned code, not the project's own.
      'services/scanning/rules/**',
      '.infra/**',
      '.turbo/**',
      'coverage/**',
      // Typed by the client generated at run time: api-clients/run.ts type-checks and lints it once that exists.
      'api-clients/setup-order.ts',
    ],
  },
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
  },
  {
    rules: {
      // Names starting with `_` are unused on purpose (a destructured field left out, a required parameter), as for tsc.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      // Functions without `await` here implement a contract that returns a promise (route and event handlers,
      // Cache, EventBus, knex's migration source, test stubs): `async` turns what they throw into a rejection,
      // which their callers handle. A forgotten `await` is what no-floating-promises catches.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // Source says with types what cannot be absent (narrowing, required fields, `present()`), not with `!`.
    files: ['**/src/**/*.ts', '**/src/**/*.tsx'],
    ignores: tests,
    rules: { '@typescript-eslint/no-non-null-assertion': 'error' },
  },
  {
    // The test kit (packages/testkit/src) is test code too: it reads the same JSON bodies, and is
    // type-checked through its own tsconfig.json.
    files: ['packages/testkit/src/**/*.ts', ...tests],
    rules: {
      // Tests read the JSON bodies of the API they exercise (testkit's ApiResponse, `res.json()`) without a
      // type per route and check their shape with chai: a body of the wrong shape fails the test either way.
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // chai's property assertions (`expect(x).to.be.true`) are expressions by design.
      '@typescript-eslint/no-unused-expressions': 'off',
    },
  },
  {
    files: tests,
    languageOptions: {
      parserOptions: { projectService: false, project: './tsconfig.tests.json', tsconfigRootDir: import.meta.dirname },
    },
  },
  {
    files: ['**/*.js', '**/*.cjs', '**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
  },
  {
    // The project's .js files are CommonJS: scripts Node runs as they are, a module preloaded with
    // `--require` (bench/e2e/profile.js) and mocha's reporter, which .mocharc.js resolves.
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
