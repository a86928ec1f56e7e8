/**
 * The config schema's validator, compiled at build time into code (issue #30, part 8): the code ajv writes for it
 * reports exactly the errors ajv's run-time compile reports (so every path the config tests name stays the same),
 * and the generated module is used only when it was made from the schema the source holds.
 */
import * as path from 'node:path';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import standaloneCode from 'ajv/dist/standalone';
import { CONFIG_AJV_OPTIONS, configSchemaHash } from '../../../src/adapters/config/config-validator';
import { configSchema } from '../../../src/adapters/config/config.schema';

const GENERATED = path.join(__dirname, '../../../src/adapters/config/config.validate.generated');

/** Configs with shape errors in every section, one or several each. */
const BAD: unknown[] = [
  {},
  { chainflow_version: 2, extra: true },
  { chainflow_version: 1, secrets: { a: { secret: 'x' } }, server: { auth: { token: { env: 'A', secret: 'b' } }, listen: 3 } },
  { chainflow_version: 1, networks: { dev: { chain_id: 0, rpc: [], explorer: 'ftp://x', max_fee_per_gas: true } } },
  { chainflow_version: 1, relayers: { ops: { signer: 'literal', low_balance: [] } }, budgets: { daily: { relayers: ['a', 'a'] } } },
  {
    chainflow_version: 1,
    workflows: {
      payouts: { trigger: { kind: 'webhook', auth: { hmac: 'x' } }, steps: [{ id: 'a', type: 'send', bogus: 1 }, { type: 'nope' }] },
      keeper: { trigger: { kind: 'cron' }, steps: 'none' },
    },
  },
];

function runtimeValidator() {
  const ajv = new Ajv(CONFIG_AJV_OPTIONS);
  addFormats(ajv);
  return ajv.compile(configSchema);
}

/** What scripts/compile-config-schema.js writes, loaded as the module it becomes. */
function standaloneValidator(): (data: unknown) => boolean {
  const ajv = new Ajv({ ...CONFIG_AJV_OPTIONS, code: { source: true } });
  addFormats(ajv);
  const code = standaloneCode(ajv, ajv.compile(configSchema));
  const module = { exports: {} as unknown };
  new Function('module', 'exports', 'require', code)(module, module.exports, require);
  return module.exports as (data: unknown) => boolean;
}

describe('the config validator', () => {
  it('reports, as standalone code, exactly the errors of ajv\'s run-time compile', () => {
    const runtime = runtimeValidator();
    const standalone = standaloneValidator() as ReturnType<typeof runtimeValidator>;
    for (const config of BAD) {
      expect(standalone(config)).toBe(false);
      expect(runtime(config)).toBe(false);
      expect(standalone.errors).toEqual(runtime.errors);
      expect(standalone.errors!.length).toBeGreaterThan(0);
    }
    expect(standalone({ chainflow_version: 1 })).toBe(true);
  });

  it('uses the generated module when it was made from this schema', () => {
    const marker = jest.fn(() => true);
    jest.doMock(GENERATED, () => ({ validate: marker, schemaHash: configSchemaHash() }), { virtual: true });
    jest.isolateModules(() => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { configValidator } = require('../../../src/adapters/config/config-validator') as typeof import('../../../src/adapters/config/config-validator');
      expect(configValidator()).toBe(marker);
    });
  });

  it('compiles the schema itself when the generated module is stale (a schema edited since the build)', () => {
    const stale = jest.fn(() => true);
    jest.doMock(GENERATED, () => ({ validate: stale, schemaHash: 'made-from-another-schema' }), { virtual: true });
    jest.isolateModules(() => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { configValidator } = require('../../../src/adapters/config/config-validator') as typeof import('../../../src/adapters/config/config-validator');
      const validate = configValidator();
      expect(validate).not.toBe(stale);
      expect(validate({ chainflow_version: 2 })).toBe(false);
      expect(validate.errors?.[0]).toMatchObject({ instancePath: '/chainflow_version', keyword: 'const' });
    });
  });

  it('names the schema and the options it was compiled with', () => {
    expect(configSchemaHash()).toBe(configSchemaHash(configSchema));
    expect(configSchemaHash({ ...configSchema, required: [] })).not.toBe(configSchemaHash());
  });
});
