// Bundles the CLI into dist/chainflow.js: a cold `chainflow history` then reads one file instead of
// ~900 modules. Native and optional database drivers stay external (sqlite3 is a native addon).
const { build } = require('esbuild');
const { join } = require('node:path');
const { mkdirSync, readFileSync, rmSync, writeFileSync } = require('node:fs');

const root = join(__dirname, '..');
// A code cache of an older bundle would only be rejected; drop it (bin/run.js writes a fresh one).
rmSync(join(root, 'dist/chainflow.js.cache'), { force: true });

// bin/run.js compiles the bundle through vm.Script with a V8 code cache. On Node 20 a script compiled from a code
// cache loses its dynamic-import callback, so a native `import()` inside the bundle fails with
// ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING. oclif loads plugins (ES modules) with `await import(url)`: those calls
// are sent to dist/import-module.js, a plain module outside the vm, whose own `import()` works.
const IMPORT_MODULE = 'import-module.js';
mkdirSync(join(root, 'dist'), { recursive: true });
writeFileSync(join(root, 'dist', IMPORT_MODULE), [
  '// Dynamic import for the bundle (see scripts/bundle.js): runs outside the vm.Script that holds the bundle.',
  "'use strict';",
  'module.exports = (specifier) => import(specifier);',
  '',
].join('\n'));
/** Files whose computed `await import(x)` must not run inside the vm, and how many each must hold. */
const DYNAMIC_IMPORTS = [
  [/[\\/]@oclif[\\/]core[\\/]lib[\\/]module-loader\.js$/, 3],
  [/[\\/]@oclif[\\/]core[\\/]lib[\\/]config[\\/]ts-path\.js$/, 1],
  [/[\\/]lilconfig[\\/]src[\\/]index\.js$/, 1],
];
const routeDynamicImports = {
  name: 'route-dynamic-imports',
  setup(b) {
    b.onResolve({ filter: /^chainflow:import-module$/ }, () => ({ path: `./${IMPORT_MODULE}`, external: true }));
    for (const [filter, expected] of DYNAMIC_IMPORTS) {
      b.onLoad({ filter }, (args) => {
        const source = readFileSync(args.path, 'utf8');
        let found = 0;
        // Only computed specifiers: a literal one (`import('x')`) is bundled by esbuild itself.
        const contents = source.replace(/\bawait import\((?!\s*['"`])/g, () => {
          found++;
          return 'await require("chainflow:import-module")(';
        });
        if (found !== expected) {
          return { errors: [{ text: `${args.path}: expected ${expected} dynamic import(s), found ${found} (did the dependency change?)` }] };
        }
        return { contents, loader: 'js' };
      });
    }
  },
};

build({
  entryPoints: [join(root, 'src/bin/cli.ts')],
  outfile: join(root, 'dist/chainflow.js'),
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  keepNames: true,
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  logLevel: 'warning',
  plugins: [routeDynamicImports],
  external: ['typescript', 'ts-node', 'mariadb', 'mariadb/callback', 'mssql', 'sqlite3', 'pg', 'pg-native', 'pg-query-stream', 'mysql', 'mysql2', 'oracledb', 'tedious', 'better-sqlite3'],
}).catch(() => process.exit(1));
