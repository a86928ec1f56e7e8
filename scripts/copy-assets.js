// Copies the embedded page next to the compiled http adapter: dist/src/adapters/http/ui for the tsc
// output, and dist/ui for the bundled CLI (dist/chainflow.js, whose __dirname is dist/).
const { cpSync } = require('node:fs');
const { join } = require('node:path');
const root = join(__dirname, '..');
for (const target of ['dist/src/adapters/http/ui', 'dist/ui']) {
  cpSync(join(root, 'src/adapters/http/ui'), join(root, target), { recursive: true });
}
