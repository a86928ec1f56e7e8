/**
 * The layer rule (.dependency-cruiser.js) fails where it should: dependency-cruiser's API is run (in a child
 * process: the package is ES modules only) with the project's config on small fixture trees under
 * test/fixtures/layers, each holding one kind of violation, and on src, which must pass.
 */
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';

const REPO = path.resolve(__dirname, '..');
const FIXTURES = path.join(REPO, 'test', 'fixtures', 'layers');

interface Violation {
  readonly rule: string;
  readonly from: string;
  readonly to: string;
  /** The modules of a cycle, when the rule is about one. */
  readonly cycle?: readonly string[];
}

const CRUISE = `
import { cruise } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
const [config, baseDir] = process.argv.slice(1);
const options = await extractDepcruiseOptions(config);
const { output } = await cruise(['src'], { ...options, validate: true, baseDir });
process.stdout.write(JSON.stringify(output.summary.violations.map((v) => ({
  rule: v.rule.name, from: v.from, to: v.to, ...(v.cycle ? { cycle: v.cycle.map((c) => c.name) } : {}),
}))));
`;

/** The violations dependency-cruiser reports for `<baseDir>/src` under the project's layer rule. */
function violations(baseDir: string): Violation[] {
  const res = spawnSync(process.execPath, ['--input-type=module', '-e', CRUISE, path.join(REPO, '.dependency-cruiser.js'), baseDir], {
    cwd: REPO, encoding: 'utf8', timeout: 60_000,
  });
  if (res.status !== 0) throw new Error(`dependency-cruiser failed (${res.status}): ${res.stderr}`);
  return (JSON.parse(res.stdout) as Violation[]).sort((a, b) => `${a.rule} ${a.from} ${a.to}`.localeCompare(`${b.rule} ${b.from} ${b.to}`));
}

const pair = (v: Violation): [string, string, string] => [v.rule, v.from, v.to];

describe('the layer rule (dependency-cruiser)', () => {
  it('refuses a domain module importing an adapter (even for a type) or any package', () => {
    expect(violations(path.join(FIXTURES, 'domain-to-adapter')).map(pair)).toEqual([
      ['domain-imports-domain-only', 'src/domain/clock.ts', expect.stringMatching(/node_modules\/yaml\//)],
      ['domain-imports-domain-only', 'src/domain/run.ts', 'src/adapters/knex/rows.ts'],
    ]);
  });

  it('refuses an application module importing an adapter (a re-export, a dynamic import) or a framework', () => {
    expect(violations(path.join(FIXTURES, 'application-to-adapter')).map(pair)).toEqual([
      ['application-imports-inward', 'src/application/later.ts', 'src/adapters/http/server.ts'],
      ['application-imports-inward', 'src/application/list-runs.use-case.ts', 'src/adapters/http/app.ts'],
      ['application-imports-inward', 'src/application/routes.ts', expect.stringMatching(/node_modules\/express\//)],
    ]);
  });

  it('refuses an import cycle, naming its modules', () => {
    const found = violations(path.join(FIXTURES, 'cycle'));
    expect(found.map((v) => v.rule)).toEqual(['no-circular']);
    expect(found[0]!.cycle).toEqual(expect.arrayContaining(['src/application/a.ts', 'src/application/b.ts']));
  });

  it('refuses an adapter (a folder or a shared module) reaching into another adapter\'s internals; its index.ts is the way in', () => {
    expect(violations(path.join(FIXTURES, 'adapter-internals')).map(pair)).toEqual([
      ['adapter-internals', 'src/adapters/http/history.routes.ts', 'src/adapters/knex/rows.ts'],
      ['adapter-internals', 'src/adapters/stream-sink.ts', 'src/adapters/knex/rows.ts'],
    ]);
  });

  it('refuses the shared knex module importing a storage technology, and one technology importing the other', () => {
    expect(violations(path.join(FIXTURES, 'storage-technologies')).map(pair)).toEqual([
      ['knex-imports-no-technology', 'src/adapters/knex/run.repository.ts', 'src/adapters/sqlite/index.ts'],
      ['technologies-apart', 'src/adapters/postgres/postgres-dialect.ts', 'src/adapters/sqlite/index.ts'],
    ]);
  });

  it('refuses an adapter importing src/bin, but for the CLI base command (the root) and the start command (the server)', () => {
    expect(violations(path.join(FIXTURES, 'adapter-to-bin')).map(pair)).toEqual([
      ['adapters-not-to-bin', 'src/adapters/cli/commands/run.ts', 'src/bin/root.ts'],
      ['adapters-not-to-bin', 'src/adapters/http/app.ts', 'src/bin/server.ts'],
    ]);
  });

  it('refuses the send path importing another feature, and spend importing the features that call it; a port is the way', () => {
    expect(violations(path.join(FIXTURES, 'feature-loop')).map(pair)).toEqual([
      ['send-path-imports-no-feature', 'src/application/sends/submit-send.use-case.ts', 'src/application/engine/workflow-catalog.ts'],
      ['spend-imports-no-runner', 'src/application/spend/budget-guard.use-case.ts', 'src/application/sends/submit-send.use-case.ts'],
    ]);
  });

  it('finds nothing in src', () => {
    expect(violations(REPO)).toEqual([]);
  });
});
