#!/usr/bin/env node
// The npm bin. The compiled entry point lives in dist/ (built by `npm run build`, run on install by `prepare`).
require('../dist/src/bin/cli.js').main(process.argv.slice(2));
