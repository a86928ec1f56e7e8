import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { loadConfig } from '../../../src/adapters/config/config.loader';
import { ENGINE_SECRET_PATHS, requireSecrets, serverSecretPaths } from '../../../src/application/secrets-needed';
import { InvalidConfigError, SecretMissingError } from '../../../src/domain/errors';

const FULL_EXAMPLE = `
chainflow_version: 1
secrets:
  api_token: { env: CHAINFLOW_API_TOKEN }
  ops_key:   { env: OPS_SIGNER_KEY }
server:
  listen: 127.0.0.1:8080
  auth:
    token: { secret: api_token }
  health_public: true
  metrics_public: false
storage:
  url: sqlite:.chainflow/chainflow.db
networks:
  sepolia:
    chain_id: 11155111
    native_symbol: ETH
    rpc: [ { env: SEPOLIA_RPC_URL } ]
relayers:
  ops:
    network: sepolia
    signer: { secret: ops_key }
    low_balance: 0.05 ether
budgets:
  daily_gas:
    window: 24h
    max_gas_spend: 0.2 ether
    scope: { relayers: [ops] }
workflows:
  payouts:
    budgets: [daily_gas]
`;

const FULL_ENV = {
  CHAINFLOW_API_TOKEN: 'api-token-value',
  OPS_SIGNER_KEY: `0x${'5e'.repeat(32)}`,
  SEPOLIA_RPC_URL: 'https://sepolia.example/v3/rpc-key-value',
};

const { CHAINFLOW_API_TOKEN: _token, ...FULL_ENV_WITHOUT_TOKEN } = FULL_ENV;

const dirs: string[] = [];

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainflow-config-'));
  dirs.push(dir);
  return dir;
}

/** Writes `yaml` as `<dir>/<name>` in a fresh temp folder and returns the file's path. */
function writeConfig(yaml: string, name = 'chainflow.yaml'): string {
  const file = path.join(tempDir(), name);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, yaml);
  return file;
}

/** The problem lines of the InvalidConfigError that loading `yaml` throws. */
function problemsOf(yaml: string, env: NodeJS.ProcessEnv = FULL_ENV): readonly string[] {
  const file = writeConfig(yaml);
  try {
    loadConfig({ cwd: path.dirname(file), env });
  } catch (error) {
    if (error instanceof InvalidConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected an InvalidConfigError');
}

afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

describe('loadConfig', () => {
  it('answers the embedded defaults when there is no config file', () => {
    const cwd = tempDir();
    const config = loadConfig({ cwd, env: {} });
    expect(config.source).toBeUndefined();
    expect(config.storage.url).toBe(`sqlite:${path.join(cwd, '.chainflow', 'chainflow.db')}`);
    expect(config.server).toEqual({ host: '127.0.0.1', port: 8080, healthPublic: true, metricsPublic: false });
    expect(config.server.authToken).toBeUndefined();
    expect(config.networks.size + config.relayers.size + config.budgets.size + config.workflows.size).toBe(0);
    expect(config.secretValues).toEqual([]);
  });

  it('loads the full CONTRACT example with its references resolved', () => {
    const file = writeConfig(FULL_EXAMPLE);
    const config = loadConfig({ cwd: path.dirname(file), env: FULL_ENV });
    expect(config.source).toBe(file);
    expect(config.server).toEqual({
      host: '127.0.0.1',
      port: 8080,
      authToken: 'api-token-value',
      healthPublic: true,
      metricsPublic: false,
    });
    expect(config.networks.get('sepolia')).toEqual({
      name: 'sepolia',
      chainId: 11155111,
      nativeSymbol: 'ETH',
      replaceAfterMs: 60_000,
      confirmations: 1,
      pollIntervalMs: 2_000,
      maxBlockRange: 2_000,
      finalityDepth: 64,
      rpc: ['https://sepolia.example/v3/rpc-key-value'],
    });
    expect(config.relayers.get('ops')).toEqual({
      name: 'ops',
      network: 'sepolia',
      signer: `0x${'5e'.repeat(32)}`,
      lowBalanceWei: 50000000000000000n,
    });
    expect(config.budgets.get('daily_gas')).toEqual({
      name: 'daily_gas',
      windowMs: 24 * 60 * 60 * 1000,
      maxGasSpendWei: 200000000000000000n,
      scope: { relayers: ['ops'] },
    });
    expect(config.workflows.get('payouts')?.budgets).toEqual(['daily_gas']);
    expect([...config.secretValues].sort()).toEqual(Object.values(FULL_ENV).sort());
  });

  it('reads 0.2 ether and the same integer wei literal exactly', () => {
    const yaml = FULL_EXAMPLE.replace('low_balance: 0.05 ether', 'low_balance: 200000000000000000');
    const file = writeConfig(yaml);
    const config = loadConfig({ cwd: path.dirname(file), env: FULL_ENV });
    expect(config.budgets.get('daily_gas')?.maxGasSpendWei).toBe(200000000000000000n);
    expect(config.relayers.get('ops')?.lowBalanceWei).toBe(200000000000000000n);
  });

  it('refuses a fraction finer than 1 wei, naming the path', () => {
    const problems = problemsOf(FULL_EXAMPLE.replace('0.2 ether', '0.0000000000000000001 ether'));
    expect(problems).toEqual([expect.stringMatching(/^budgets\.daily_gas\.max_gas_spend: .*finer than 1 wei/)]);
  });

  it('refuses chainflow_version 2', () => {
    const problems = problemsOf(FULL_EXAMPLE.replace('chainflow_version: 1', 'chainflow_version: 2'));
    expect(problems).toEqual(['chainflow_version: unsupported version (expected 1)']);
  });

  it('refuses a literal where a reference is required, naming the path', () => {
    const problems = problemsOf(FULL_EXAMPLE.replace('token: { secret: api_token }', 'token: hunter2'));
    expect(problems).toEqual([
      'server.auth.token: must be a reference { secret: NAME } or { env: NAME }, not a string',
    ]);
  });

  it('reports a bad duration at its path', () => {
    const problems = problemsOf(FULL_EXAMPLE.replace('window: 24h', 'window: 24 hours'));
    expect(problems).toEqual([expect.stringMatching(/^budgets\.daily_gas\.window: is not a duration/)]);
  });

  it('reports several problems, one line each naming its path', () => {
    const yaml = `
chainflow_version: 1
secrets:
  api_token: { env: CHAINFLOW_API_TOKEN }
server:
  listen: 127.0.0.1:99999
  colour: blue
  auth:
    token: { secret: nope }
storage:
  url: mysql://db
networks:
  sepolia:
    chain_id: 0
    rpc: [ "https://literal.example", { env: A, secret: b } ]
    explorer: not a url
relayers:
  ops:
    network: mainnet
    signer: "0xabc"
    low_balance: -1 ether
budgets:
  daily:
    window: 0h
    max_gas_spend: 1.5
    scope: { relayers: [ghost] }
workflows:
  payouts:
    budgets: [weekly]
    trigger: { kind: webhook, auth: { hmac: literal-secret } }
    steps:
      - id: notify
        type: http_call
        url: https://partner.example/notify
        headers: { X-Key: plain }
`;
    const problems = problemsOf(yaml, {});
    const byPath = new Map(problems.map((line) => [line.slice(0, line.indexOf(': ')), line]));
    expect(byPath.size).toBe(problems.length);
    expect([...byPath.keys()].sort()).toEqual(
      [
        'server.listen',
        'server.colour',
        'server.auth.token',
        'storage.url',
        'networks.sepolia.chain_id',
        'networks.sepolia.rpc[0]',
        'networks.sepolia.rpc[1]',
        'networks.sepolia.explorer',
        'relayers.ops.network',
        'relayers.ops.signer',
        'relayers.ops.low_balance',
        'budgets.daily.window',
        'budgets.daily.max_gas_spend',
        'budgets.daily.scope.relayers[0]',
        'workflows.payouts.budgets[0]',
        'workflows.payouts.steps[0].headers.X-Key',
        'workflows.payouts.trigger.auth.hmac',
      ].sort(),
    );
    expect(problems[0]).toMatch(/^server\.listen: must be host:port/);
    expect(problems[problems.length - 1]).toMatch(/^workflows\.payouts\.steps\[0\]\.headers\.X-Key: /);
    expect(byPath.get('server.colour')).toBe("server.colour: unknown key 'colour'");
    expect(byPath.get('server.auth.token')).toBe('server.auth.token: names a secret not declared under secrets (declared: api_token)');
    expect(byPath.get('networks.sepolia.rpc[0]')).toBe(
      'networks.sepolia.rpc[0]: must be a reference { secret: NAME } or { env: NAME }, not a string',
    );
    expect(byPath.get('relayers.ops.network')).toBe('relayers.ops.network: names no configured network (configured: sepolia)');
    expect(byPath.get('budgets.daily.window')).toMatch(/greater than zero/);
  });

  it('an unset environment variable is no config error: it is noted, with nothing to redact for it', () => {
    const config = loadConfig({ cwd: path.dirname(writeConfig(FULL_EXAMPLE)), env: { CHAINFLOW_API_TOKEN: 'api-token-value', OPS_SIGNER_KEY: '' } });
    expect(config.unsetSecrets).toEqual([
      { at: 'networks.sepolia.rpc[0]', variable: 'SEPOLIA_RPC_URL', empty: false },
      { at: 'relayers.ops.signer', variable: 'OPS_SIGNER_KEY', empty: true },
    ]);
    expect(config.networks.get('sepolia')?.rpc).toEqual([]);
    expect(config.relayers.get('ops')?.signer).toBeUndefined();
    expect(config.server.authToken).toBe('api-token-value');
    expect(config.secretValues).toEqual(['api-token-value']);
  });

  it('requireSecrets names, in one line, only the unset settings a command uses', () => {
    const config = loadConfig({ cwd: path.dirname(writeConfig(FULL_EXAMPLE)), env: { CHAINFLOW_API_TOKEN: 'api-token-value' } });
    expect(() => requireSecrets(config, serverSecretPaths(config), 'chainflow start')).not.toThrow();
    expect(() => requireSecrets(config, ENGINE_SECRET_PATHS, 'chainflow worker')).toThrow(new SecretMissingError([
      { at: 'networks.sepolia.rpc[0]', variable: 'SEPOLIA_RPC_URL', empty: false },
      { at: 'relayers.ops.signer', variable: 'OPS_SIGNER_KEY', empty: false },
    ], 'chainflow worker'));
    const noToken = loadConfig({ cwd: path.dirname(writeConfig(FULL_EXAMPLE)), env: FULL_ENV_WITHOUT_TOKEN });
    expect(() => requireSecrets(noToken, serverSecretPaths(noToken), 'chainflow start'))
      .toThrow('chainflow start needs server.auth.token (environment variable CHAINFLOW_API_TOKEN is not set)');
  });

  it('collects secret values, including an env var referenced only inside a workflow definition', () => {
    const yaml = `${FULL_EXAMPLE}
    trigger: { kind: webhook, auth: { hmac: { env: WEBHOOK_HMAC } } }
    steps:
      - id: call
        type: http_call
        url: https://partner.example/call
        body: { key: { env: PARTNER_URL } }
        headers: { Authorization: { secret: api_token } }
`;
    const file = writeConfig(yaml);
    const env = { ...FULL_ENV, WEBHOOK_HMAC: 'hmac-value', PARTNER_URL: 'https://partner.example/?key=k1', OTHER: 'x' };
    const config = loadConfig({ cwd: path.dirname(file), env });
    expect([...config.secretValues].sort()).toEqual(
      [...Object.values(FULL_ENV), 'hmac-value', 'https://partner.example/?key=k1'].sort(),
    );
    expect(config.workflows.get('payouts')?.definition.trigger).toEqual({
      kind: 'webhook',
      auth: { hmac: { env: 'WEBHOOK_HMAC' } },
    });
    expect(config.workflows.get('payouts')?.engine?.trigger).toEqual({ kind: 'webhook', secret: 'hmac-value' });
  });

  it('resolves a relative sqlite path against the config file folder, not the working directory', () => {
    const yaml = FULL_EXAMPLE.replace('sqlite:.chainflow/chainflow.db', 'sqlite:data/cf.db');
    const file = writeConfig(yaml, 'conf/chainflow.yaml');
    const cwd = tempDir();
    const config = loadConfig({ cwd, configPath: file, env: FULL_ENV });
    expect(config.storage.url).toBe(`sqlite:${path.join(path.dirname(file), 'data', 'cf.db')}`);
    const pg = writeConfig(FULL_EXAMPLE.replace('sqlite:.chainflow/chainflow.db', 'postgres://u@db:5432/cf'));
    expect(loadConfig({ cwd, configPath: pg, env: FULL_ENV }).storage.url).toBe('postgres://u@db:5432/cf');
  });

  it('finds the file through CHAINFLOW_CONFIG, and refuses an explicit path that does not exist', () => {
    const file = writeConfig(FULL_EXAMPLE, 'elsewhere.yaml');
    const config = loadConfig({ cwd: tempDir(), env: { ...FULL_ENV, CHAINFLOW_CONFIG: file } });
    expect(config.source).toBe(file);
    const missing = path.join(tempDir(), 'missing.yaml');
    expect(() => loadConfig({ cwd: tempDir(), configPath: missing, env: {} })).toThrow(InvalidConfigError);
    expect(() => loadConfig({ cwd: tempDir(), env: { CHAINFLOW_CONFIG: missing } })).toThrow(
      /missing\.yaml: config file not found/,
    );
  });

  it('reports a YAML syntax error with the file and line', () => {
    const file = writeConfig('chainflow_version: 1\nserver:\n  listen: [unclosed\n');
    let caught: unknown;
    try {
      loadConfig({ cwd: path.dirname(file), env: {} });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InvalidConfigError);
    const [line] = (caught as InvalidConfigError).problems;
    expect(line.startsWith(`${file}:`)).toBe(true);
    expect(line.slice(file.length)).toMatch(/^:\d+:\d+: YAML syntax error/);
  });
});

describe('config errors never carry a value of the config (issue #13, item 2)', () => {
  /** Every place a value could be echoed holds a distinctive word; no problem line may contain any of them. */
  const LEAKY = `
chainflow_version: LEAK-version
secrets:
  api_token: { env: CHAINFLOW_API_TOKEN }
server:
  listen: LEAK-listen:99999
  auth:
    token: LEAK-literal-token
storage:
  url: postgres-ish://user:LEAK-password@db
networks:
  sepolia:
    chain_id: LEAK-chain
    rpc: [ "https://LEAK-rpc.example/key" ]
relayers:
  ops:
    network: LEAK-network
    signer: { secret: LEAK-secret-name }
    low_balance: LEAK-amount ether
budgets:
  daily:
    window: LEAK-window
    max_gas_spend: 1.LEAK
    max_token_value: LEAK-units
    scope: { relayers: [LEAK-relayer] }
workflows:
  payouts:
    budgets: [LEAK-budget]
    trigger: { kind: cron, schedule: "LEAK * * * *" }
    conditions: [ { name: c, if: "LEAK_a LEAK_b" } ]
    steps:
      - { id: a, type: http_call, url: "https://x.example", headers: { X-Key: LEAK-header } }
      - { id: a, type: delay, duration: LEAK-duration }
`;

  it('names the path and what is wrong, never the value', () => {
    const problems = problemsOf(LEAKY, {});
    expect(problems.length).toBeGreaterThan(10);
    for (const line of problems) expect(line).not.toMatch(/LEAK/i);
    expect(problems).toContain('server.auth.token: must be a reference { secret: NAME } or { env: NAME }, not a string');
  });

  it('a YAML syntax error names the line and column, not the text', () => {
    const problems = problemsOf('chainflow_version: 1\nserver:\n  listen: "LEAK-unterminated\n');
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/:\d+:\d+: YAML syntax error/);
    expect(problems[0]).not.toMatch(/LEAK/);
  });
});
