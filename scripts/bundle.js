// Bundles the CLI into dist/chainflow.js: a cold `chainflow history` then reads one file instead of
// ~900 modules. Native and optional database drivers stay external (sqlite3 is a native addon).
const { build } = require('esbuild');
const { join } = require('node:path');
const { rmSync } = require('node:fs');

const root = join(__dirname, '..');
// A code cache of an older bundle would only be rejected; drop it (bin/run.js writes a fresh one).
rmSync(join(root, 'dist/chainflow.js.cache'), { force: true });
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
  external: ['typescript', 'ts-node', 'mariadb', 'mariadb/callback', 'mssql', 'sqlite3', 'pg', 'pg-native', 'pg-query-stream', 'mysql', 'mysql2', 'oracledb', 'tedious', 'better-sqlite3'],
}).catch(() => process.exit(1));
