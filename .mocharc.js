// One mocha run over every workspace's tests, TypeScript through tsx. Test files named on the command
// line run alone (mocha would otherwise add them to this list and run everything).
const named = process.argv.slice(2).filter((a) => /\.test\.ts$/.test(a));
module.exports = {
  require: ['tsx/cjs'],
  extension: ['ts'],
  spec:
    named.length > 0
      ? []
      : [
          'packages/*/test/**/*.test.ts',
          'services/*/test/**/*.test.ts',
          'gateway/test/**/*.test.ts',
          'console/test/**/*.test.ts',
          'packages/*/src/**/*.test.ts',
          'services/*/src/**/*.test.ts',
          'gateway/src/**/*.test.ts',
          'console/src/**/*.test.ts',
        ],
  timeout: 120000,
  reporter: require.resolve('./scripts/mocha-summary-reporter.js'),
  exit: true,
};
