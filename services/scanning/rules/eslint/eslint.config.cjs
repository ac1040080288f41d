'use strict';
// The ESLint configuration Bulwark scans JavaScript with. It is passed with --config and
// --no-config-lookup, so the scanned repository's own ESLint configuration and plugins are never
// loaded (they could run arbitrary code and would change what is reported).
const security = require('eslint-plugin-security');

module.exports = [
  {
    files: ['**/*.js', '**/*.cjs', '**/*.mjs', '**/*.jsx'],
    // Dependencies and build output are not the project's own code.
    ignores: ['**/node_modules/**', '**/dist/**', '**/build/**', '**/*.min.js'],
    plugins: { security },
    // No sourceType: ESLint's defaults (module for .js and .mjs, commonjs for .cjs) parse both
    // import and require(), where forcing commonjs would fail on every ES module file.
    languageOptions: { ecmaVersion: 'latest', parserOptions: { ecmaFeatures: { jsx: true } } },
    // Scanned code may carry /* eslint-disable */ comments meant for the project's own linting;
    // they must not hide security findings.
    linterOptions: { noInlineConfig: true, reportUnusedDisableDirectives: 'off' },
    rules: { ...security.configs.recommended.rules },
  },
];
