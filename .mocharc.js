// One mocha run over every workspace's tests, TypeScript through tsx.
module.exports = {
  require: ['tsx/cjs'],
  extension: ['ts'],
  spec: ['packages/*/test/**/*.test.ts', 'services/*/test/**/*.test.ts', 'gateway/test/**/*.test.ts'],
  timeout: 120000,
  reporter: require.resolve('./scripts/mocha-summary-reporter.js'),
  exit: true,
};
