'use strict';
// ESLint resolves a formatter given by package name from its working directory, which is the
// scanned workspace; this file, named by path, resolves it from Bulwark's own node_modules instead.
module.exports = require('@microsoft/eslint-formatter-sarif');
