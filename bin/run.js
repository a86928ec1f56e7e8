#!/usr/bin/env node
// The npm bin: runs the bundled program built by `npm run build` (run on install by `prepare`).
// A cold start is dominated by compiling the bundle, so its V8 code cache is kept beside it
// (dist/chainflow.js.cache, refreshed when V8 rejects it); without a usable cache it loads as usual.
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const Module = require('node:module');

const root = path.join(__dirname, '..');
const file = path.join(root, 'dist', 'chainflow.js');
const cacheFile = `${file}.cache`;

function load() {
  let cachedData;
  try {
    cachedData = fs.readFileSync(cacheFile);
  } catch {
    cachedData = undefined;
  }
  // No dynamic import runs inside this script: the bundle sends them to dist/import-module.js (see
  // scripts/bundle.js), because a script compiled from a code cache has no import callback on Node 20.
  const script = new vm.Script(Module.wrap(fs.readFileSync(file, 'utf8')), { filename: file, cachedData });
  const mod = new Module(file, module);
  mod.filename = file;
  mod.paths = Module._nodeModulePaths(path.dirname(file));
  require.cache[file] = mod;
  script.runInThisContext()(mod.exports, (id) => mod.require(id), mod, file, path.dirname(file));
  mod.loaded = true;
  if (!cachedData || script.cachedDataRejected) {
    process.once('exit', () => {
      try {
        const tmp = `${cacheFile}.${process.pid}`;
        fs.writeFileSync(tmp, script.createCachedData());
        fs.renameSync(tmp, cacheFile);
      } catch {
        // A read-only install simply runs without the cache.
      }
    });
  }
  return mod.exports;
}

let program;
try {
  program = load();
} catch {
  program = require(file);
}
program.main(process.argv.slice(2), root);
