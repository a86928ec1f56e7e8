/**
 * The layer rule (STYLE.md, "The house"), checked by dependency-cruiser on every `npm test` and by
 * `npm run lint:layers`: arrows point inward only (adapters -> application -> domain), no import cycle anywhere
 * in src, and an adapter reaches another adapter only through that adapter's public entry. test/layers.test.ts
 * proves each rule fails on a small fixture tree. Paths are relative to the folder the cruise starts from.
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: 'domain-imports-domain-only',
      comment: 'src/domain holds entities and pure rules: it imports src/domain and node builtins, nothing else (no package).',
      severity: 'error',
      from: { path: '^src/domain/' },
      to: { pathNot: '^src/domain/', dependencyTypesNot: ['core'] },
    },
    {
      name: 'application-imports-inward',
      comment: 'src/application (use cases and ports) imports src/domain and src/application, node builtins, and two small ' +
        'libraries (inversify for @injectable / @inject, ajv for the journal event schema); never an adapter, bin or a framework.',
      severity: 'error',
      from: { path: '^src/application/' },
      to: { pathNot: ['^src/(domain|application)/', '(^|/)node_modules/(inversify|ajv)/'], dependencyTypesNot: ['core'] },
    },
    {
      name: 'adapters-not-to-bin',
      comment: 'Adapters never import the composition root or the entry points (src/bin). Three exceptions, each to one file: ' +
        'the CLI base command asks the root for its use cases (oclif builds commands itself), `chainflow start` starts the server, ' +
        'and `chainflow worker` its metrics listener.',
      severity: 'error',
      from: { path: '^src/adapters/', pathNot: ['^src/adapters/cli/base\\.command\\.ts$', '^src/adapters/cli/commands/start\\.ts$', '^src/adapters/cli/commands/worker\\.ts$'] },
      to: { path: '^src/bin/' },
    },
    {
      name: 'cli-base-command-to-root-only',
      comment: 'The CLI base command may import src/bin/root.ts, and nothing else of src/bin.',
      severity: 'error',
      from: { path: '^src/adapters/cli/base\\.command\\.ts$' },
      to: { path: '^src/bin/', pathNot: '^src/bin/root\\.ts$' },
    },
    {
      name: 'start-command-to-server-only',
      comment: 'The start command may import src/bin/server.ts, and nothing else of src/bin.',
      severity: 'error',
      from: { path: '^src/adapters/cli/commands/start\\.ts$' },
      to: { path: '^src/bin/', pathNot: '^src/bin/server\\.ts$' },
    },
    {
      name: 'worker-command-to-process-metrics-only',
      comment: 'The worker command may import src/bin/process-metrics.ts, and nothing else of src/bin.',
      severity: 'error',
      from: { path: '^src/adapters/cli/commands/worker\\.ts$' },
      to: { path: '^src/bin/', pathNot: '^src/bin/process-metrics\\.ts$' },
    },
    {
      name: 'adapter-internals',
      comment: 'An adapter folder\'s internals are everything in it but its index.ts: another adapter (a folder, or a shared ' +
        'module directly under src/adapters) imports src/adapters/<name>/index.ts only. Inside a folder anything goes.',
      severity: 'error',
      from: { path: '^src/adapters/([^/]+)' },
      to: { path: '^src/adapters/[^/]+/', pathNot: ['^src/adapters/$1/', '^src/adapters/[^/]+/index\\.ts$'] },
    },
    {
      name: 'knex-imports-no-technology',
      comment: 'The shared knex module (row mapping, migrations, the repositories\' common SQL) reaches what differs between ' +
        'databases through its StoreDialect only: it never imports adapters/sqlite or adapters/postgres.',
      severity: 'error',
      from: { path: '^src/adapters/knex/' },
      to: { path: '^src/adapters/(sqlite|postgres)/' },
    },
    {
      name: 'technologies-apart',
      comment: 'SQLite and PostgreSQL each build on the shared knex module, never on each other.',
      severity: 'error',
      from: { path: '^src/adapters/(sqlite|postgres)/' },
      to: { path: '^src/adapters/(sqlite|postgres)/', pathNot: '^src/adapters/$1/' },
    },
    {
      name: 'send-path-imports-no-feature',
      comment: 'The send path (src/application/sends) imports no other feature folder: budgets, the workflows it runs for ' +
        'and the runs a settle ends reach it through ports (SendBudget, UnattendedRuns), so sends, spend, relayers and the ' +
        'engine never import each other in a loop (STYLE.md, weak spot 5).',
      severity: 'error',
      from: { path: '^src/application/sends/' },
      to: { path: '^src/application/(engine|spend|relayers|history|journal|auth)/' },
    },
    {
      name: 'spend-imports-no-runner',
      comment: 'The spend feature (ledger, budgets) imports neither the send path nor the engine nor relayers: they call it.',
      severity: 'error',
      from: { path: '^src/application/spend/' },
      to: { path: '^src/application/(sends|engine|relayers)/' },
    },
    {
      name: 'no-circular',
      comment: 'No import cycle anywhere in src: a cycle means two modules are one idea, or an arrow points the wrong way.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'An import that does not resolve to a file or an installed package.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: 'no-non-package-json',
      comment: 'src imports only packages declared in package.json.',
      severity: 'error',
      from: { path: '^src/' },
      to: { dependencyTypes: ['npm-no-pkg', 'npm-unknown'] },
    },
    {
      name: 'not-to-dev-dep',
      comment: 'src ships: it imports no devDependency (those are for tests, the bench and the build).',
      severity: 'error',
      from: { path: '^src/' },
      to: { dependencyTypes: ['npm-dev'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports count: a domain file may not even name an adapter's type.
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
      mainFields: ['main', 'types'],
    },
  },
};
