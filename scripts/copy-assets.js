// Copies the embedded page (its HTML shell and assets/: the stylesheet and ES modules, served as they are)
// next to the compiled http adapter: dist/src/adapters/http/ui for the tsc output, and dist/ui for the bundled
// CLI (dist/chainflow.js, whose __dirname is dist/). Each target is emptied first, so that a file removed from
// the source is not served (nor hashed into the assets' version) from a stale copy.
const { cpSync, rmSync } = require('node:fs');
const { join } = require('node:path');
const root = join(__dirname, '..');
for (const target of ['dist/src/adapters/http/ui', 'dist/ui']) {
  rmSync(join(root, target), { recursive: true, force: true });
  cpSync(join(root, 'src/adapters/http/ui'), join(root, target), { recursive: true });
}
