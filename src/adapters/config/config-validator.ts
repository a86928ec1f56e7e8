import { createHash } from 'node:crypto';
import type { Options, ValidateFunction } from 'ajv';
import { configSchema } from './config.schema';

/**
 * ajv's options for the config schema, shared by the build (scripts/compile-config-schema.js writes the validator
 * as standalone code) and the fallback below, so both report the same errors: every error (`allErrors`), with the
 * failing value (`verbose`, which schemaProblems words).
 */
export const CONFIG_AJV_OPTIONS: Options = { allErrors: true, verbose: true, allowUnionTypes: true, validateSchema: false };

/** Names the schema a generated validator was compiled from: a changed schema is never checked by a stale one. */
export function configSchemaHash(schema: unknown = configSchema): string {
  return createHash('sha256').update(JSON.stringify(schema)).update(JSON.stringify(CONFIG_AJV_OPTIONS)).digest('hex');
}

/** What the build writes beside this file (gitignored): the validator as code, and the schema it came from. */
interface GeneratedValidator {
  readonly validate: ValidateFunction;
  readonly schemaHash: string;
}

function generated(): GeneratedValidator | undefined {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require('./config.validate.generated') as GeneratedValidator;
  } catch {
    return undefined;
  }
}

let compiled: ValidateFunction | undefined;

/**
 * The config schema's validator. Compiling the schema with ajv took most of a cold `chainflow history`'s own time
 * (issue #30, part 8), so `npm run build` compiles it once into code; that code is used when it was made from
 * this very schema. Otherwise (a test run from src with no build, or a schema edited since) ajv compiles it here,
 * once per process, on first use: a start on the embedded defaults (no file) never pays for either.
 */
export function configValidator(): ValidateFunction {
  if (compiled) return compiled;
  const built = generated();
  if (built && built.schemaHash === configSchemaHash()) {
    compiled = built.validate;
    return compiled;
  }
  /* eslint-disable @typescript-eslint/no-require-imports */
  const Ajv = (require('ajv') as typeof import('ajv')).default;
  const addFormats = (require('ajv-formats') as typeof import('ajv-formats')).default;
  /* eslint-enable @typescript-eslint/no-require-imports */
  const ajv = new Ajv(CONFIG_AJV_OPTIONS);
  addFormats(ajv);
  compiled = ajv.compile(configSchema);
  return compiled;
}
