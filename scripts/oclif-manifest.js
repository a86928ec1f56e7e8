// Writes oclif.manifest.json after the build, so that a command start loads only the command it runs
// (without a manifest oclif requires every command module to learn their flags).
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');
require('reflect-metadata');
const { Plugin } = require('@oclif/core');

(async () => {
  const root = join(__dirname, '..');
  const plugin = new Plugin({ root, type: 'core', ignoreManifest: true, errorOnManifestCreate: true });
  await plugin.load();
  writeFileSync(join(root, 'oclif.manifest.json'), JSON.stringify(plugin.manifest, null, 2));
})().catch((err) => {
  console.error(err);
  process.exit(1);
});
