import * as fs from 'fs';
import * as path from 'path';
import { parseDocument } from 'yaml';
import { DEFAULT_ENGINE_CONFIG, type ChainflowConfig } from '../../application/config';
import { InvalidConfigError } from '../../domain/errors';
import { describeValue } from './config.schema';
import { isMap, type Raw } from './config-document';
import { ConfigReader } from './config.reader';

/** Where and how to load the configuration. */
export interface LoadConfigOptions {
  /** Working directory: where `chainflow.yaml` is looked for and the default SQLite file lives. */
  readonly cwd: string;
  /** `--config PATH`; relative paths resolve against `cwd`. Must exist when given. */
  readonly configPath?: string;
  /** Environment for `CHAINFLOW_CONFIG` and `{ env: NAME }` references (usually `process.env`). */
  readonly env: NodeJS.ProcessEnv;
}

const CONFIG_FILE = 'chainflow.yaml';
const DEFAULT_LISTEN = { host: '127.0.0.1', port: 8080 };

/**
 * Loads `chainflow.yaml` (CONTRACT section 2): `configPath`, else `env.CHAINFLOW_CONFIG`, else `<cwd>/chainflow.yaml`
 * when it exists, else the embedded defaults (SQLite under `<cwd>/.chainflow/`, `127.0.0.1:8080`, auth off).
 *
 * @throws InvalidConfigError listing every problem found, one line each naming its path.
 */
export function loadConfig(options: LoadConfigOptions): ChainflowConfig {
  const cwd = path.resolve(options.cwd);
  const named = options.configPath || options.env.CHAINFLOW_CONFIG;
  const file = named ? path.resolve(cwd, named) : path.join(cwd, CONFIG_FILE);
  if (!named && !fs.existsSync(file)) return defaultConfig(cwd);
  return new ConfigReader(readYaml(file), file, defaultConfig(cwd), options.env).read();
}

/** The configuration used when there is no config file at all. */
export function defaultConfig(cwd: string): ChainflowConfig {
  return {
    server: { ...DEFAULT_LISTEN, healthPublic: true, metricsPublic: false },
    storage: { url: `sqlite:${path.join(path.resolve(cwd), '.chainflow', 'chainflow.db')}` },
    networks: new Map(),
    relayers: new Map(),
    budgets: new Map(),
    workflows: new Map(),
    engine: DEFAULT_ENGINE_CONFIG,
    secretValues: [],
  };
}

function readYaml(file: string): Raw {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new InvalidConfigError([
      code === 'ENOENT' ? `${file}: config file not found` : `${file}: cannot read (${code ?? 'error'})`,
    ]);
  }
  const doc = parseDocument(text, { intAsBigInt: true });
  if (doc.errors.length > 0) {
    throw new InvalidConfigError(
      doc.errors.map((e) => {
        const at = e.linePos?.[0];
        return `${file}${at ? `:${at.line}:${at.col}` : ''}: YAML syntax error: ${yamlReason(e.code)}`;
      }),
    );
  }
  const value = normalizeIntegers(doc.toJS());
  if (value === null || value === undefined) return {};
  if (!isMap(value)) throw new InvalidConfigError([`${file}: must be a map of settings, not ${describeValue(value)}`]);
  return value;
}

/** The YAML parser's reason in words, from its error code: its messages may quote the text (a secret, say). */
const YAML_REASONS: Readonly<Record<string, string>> = {
  BAD_INDENT: 'bad indentation',
  TAB_AS_INDENT: 'a tab used as indentation',
  MISSING_CHAR: 'a closing quote, bracket, comma or colon is missing',
  DUPLICATE_KEY: 'a key is given twice',
  BAD_DQ_ESCAPE: 'a bad escape sequence in a double-quoted string',
  MULTILINE_IMPLICIT_KEY: 'a key must be on a single line',
  UNEXPECTED_TOKEN: 'unexpected text here',
  BLOCK_AS_IMPLICIT_KEY: 'a block cannot be a key',
  BAD_SCALAR_START: 'a plain value cannot start with this character',
};

function yamlReason(code: string): string {
  return YAML_REASONS[code] ?? code.toLowerCase().replace(/_/g, ' ');
}

/** YAML integers arrive as bigint (so big wei literals stay exact); safe ones become numbers, others digit strings. */
function normalizeIntegers(value: unknown): unknown {
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (Array.isArray(value)) return value.map(normalizeIntegers);
  if (isMap(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalizeIntegers(v)]));
  return value;
}
