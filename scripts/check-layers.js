#!/usr/bin/env node
// The layer rule (STYLE.md): arrows point inward only. domain imports only domain (and node builtins);
// application imports domain and application (and small libraries: inversify, ajv), never an adapter or a
// framework; adapters never import bin, except the CLI's base command that asks the composition root for
// its use cases. Exits 1 listing every violation.
const { readdirSync, readFileSync, statSync } = require('node:fs');
const { join, relative, resolve, dirname } = require('node:path');

const root = resolve(__dirname, '..');
const src = join(root, 'src');
const LAYERS = ['domain', 'application', 'adapters', 'bin'];
const ALLOWED = {
  domain: { layers: ['domain'], packages: [] },
  application: { layers: ['domain', 'application'], packages: ['inversify', 'ajv'] },
  adapters: { layers: ['domain', 'application', 'adapters'], packages: null },
  bin: { layers: LAYERS, packages: null },
};
const EXCEPTIONS = [['src/adapters/cli/base.command.ts', 'src/bin/root.ts'], ['src/adapters/cli/commands/start.ts', 'src/bin/server.ts']];

function files(dir) {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

const problems = [];
for (const file of files(src)) {
  const layer = relative(src, file).split('/')[0];
  const rule = ALLOWED[layer];
  if (!rule) continue;
  const text = readFileSync(file, 'utf8');
  for (const m of text.matchAll(/(?:import|export)[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|require\(\s*['"]([^'"]+)['"]\s*\)/g)) {
    const spec = m[1] || m[2] || m[3];
    if (spec.startsWith('.')) {
      const target = relative(root, resolve(dirname(file), spec)) + '.ts';
      const targetLayer = relative('src', target).split('/')[0];
      const allowedException = EXCEPTIONS.some(([f, t]) => relative(root, file) === f && target === t);
      if (!rule.layers.includes(targetLayer) && !allowedException) {
        problems.push(`${relative(root, file)}: ${layer} must not import ${targetLayer} (${spec})`);
      }
    } else if (!spec.startsWith('node:') && rule.packages !== null) {
      const pkg = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0];
      if (!rule.packages.includes(pkg)) problems.push(`${relative(root, file)}: ${layer} must not import package ${spec}`);
    }
  }
}
if (problems.length) {
  console.error(`layer rule broken:\n${problems.join('\n')}`);
  process.exit(1);
}
console.log('layer rule: ok');
