// Copies the embedded page next to the compiled http adapter (dist/src/adapters/http/ui).
const { cpSync } = require('node:fs');
const { join } = require('node:path');
const root = join(__dirname, '..');
cpSync(join(root, 'src/adapters/http/ui'), join(root, 'dist/src/adapters/http/ui'), { recursive: true });
