/** The text that replaces every secret (SPEC, Conventions). */
export const REDACTED = '<redacted>';

/** Field names whose whole value is a secret wherever they appear in rendered data (CONTRACT section 2). */
export const SECRET_FIELD_NAMES: readonly string[] = [
  'headers', 'hmac', 'env', 'signer', 'token', 'password', 'authorization', 'api_key', 'private_key',
];

/** Values shorter than this are replaced only where they form a whole string (no substring matches). */
const MIN_SUBSTRING_LENGTH = 4;

/**
 * Replaces secrets in anything about to be rendered. Built once from the configuration's secret values;
 * there is deliberately no way to turn it off.
 */
export class Redactor {
  private readonly pattern: RegExp | undefined;
  private readonly whole: ReadonlySet<string>;
  private readonly secretFields: ReadonlySet<string>;
  private readonly keyRules = new Map<string, KeyRule>();
  /** What JSON text must hold for `redact` to change anything in it (see redactJson); it matches more, never less. */
  private readonly suspect: RegExp;

  constructor(secretValues: readonly string[], secretFields: readonly string[] = SECRET_FIELD_NAMES) {
    const values = [...new Set(secretValues.filter((v) => v.length > 0))];
    const long = values.filter((v) => v.length >= MIN_SUBSTRING_LENGTH).sort((a, b) => b.length - a.length);
    this.pattern = long.length ? new RegExp(long.map(escapeRegExp).join('|'), 'g') : undefined;
    this.whole = new Set(values);
    this.secretFields = new Set(secretFields.map((f) => f.toLowerCase()));
    this.suspect = suspectPattern(values, [...this.secretFields]);
  }

  /**
   * `json` (JSON text, as JSON.stringify or SQLite's JSON functions write it) with every secret replaced: the same
   * text as `JSON.stringify(redact(JSON.parse(json)))`. Text that cannot hold anything to redact (no secret value,
   * no secret-typed field name, no `\u` escape that could spell one) is returned as it is, without parsing it: how
   * pages rendered by the storage are redacted without building their objects.
   */
  redactJson(json: string): string {
    this.suspect.lastIndex = 0;
    return this.suspect.test(json) ? JSON.stringify(this.walk(JSON.parse(json))) : json;
  }

  /** Redacts one string: whole-string matches of any secret, and substrings of secrets of 4+ characters. */
  redactText(text: string): string {
    if (this.whole.size !== 0 && this.whole.has(text)) return REDACTED;
    if (!this.pattern) return text;
    this.pattern.lastIndex = 0;
    return this.pattern.test(text) ? text.replace(this.pattern, REDACTED) : text;
  }

  /**
   * `value` with every secret replaced; secret-typed fields are replaced whole. Copy on write: the parts
   * that hold no secret are returned as they are (never modified), so that rendering clean data allocates nothing.
   */
  redact<T>(value: T): T {
    return this.walk(value) as T;
  }

  /** The rule of an object key, worked out once per key (exports meet the same few keys millions of times). */
  private keyRule(k: string): KeyRule {
    let rule = this.keyRules.get(k);
    if (!rule) {
      rule = { key: this.redactText(k), secret: this.secretFields.has(k.toLowerCase()) };
      if (this.keyRules.size < MAX_KEY_RULES) this.keyRules.set(k, rule);
    }
    return rule;
  }

  private walk(value: unknown): unknown {
    if (typeof value === 'string') return this.redactText(value);
    if (value === null || typeof value !== 'object') return value;
    if (Array.isArray(value)) {
      let out: unknown[] | undefined;
      for (let i = 0; i < value.length; i++) {
        const v = this.walk(value[i]);
        if (v !== value[i]) (out ??= value.slice())[i] = v;
      }
      return out ?? value;
    }
    let out: Record<string, unknown> | undefined;
    const source = value as Record<string, unknown>;
    for (const k in source) {
      if (!Object.prototype.hasOwnProperty.call(source, k)) continue;
      const v = source[k];
      const rule = this.keyRule(k);
      const key = rule.key;
      const redacted = v !== null && v !== undefined && rule.secret ? REDACTED : this.walk(v);
      if (key !== k) {
        out ??= { ...source };
        delete out[k];
        out[key] = redacted;
      } else if (redacted !== v) {
        (out ??= { ...source })[k] = redacted;
      }
    }
    return out ?? source;
  }
}

/** What becomes of an object key: its redacted text, and whether its value is a secret whole. */
interface KeyRule {
  readonly key: string;
  readonly secret: boolean;
}

/** Distinct keys remembered per Redactor: rendered data has a few dozen; keys past this many are worked out each time. */
const MAX_KEY_RULES = 1024;

/**
 * Matches JSON text in which `redact` could find something: a secret-typed field name as a whole string (a key,
 * compared as `redact` compares keys: lower-cased; with the `u` and `i` flags the Kelvin sign, which lower-cases to
 * `k`, matches too), any `\u` escape (JSON.stringify and SQLite escape control characters only, so a name spelled
 * with escapes is caught), a secret of 4+ characters anywhere, a shorter one as a whole string. A secret holding a
 * character JSON escapes (a quote, a backslash, a control character) is looked for as JSON writes it.
 */
function suspectPattern(values: readonly string[], secretFields: readonly string[]): RegExp {
  const inJson = (v: string): string => escapeRegExp(JSON.stringify(v).slice(1, -1));
  const parts = [
    ...(secretFields.length ? [`"(?:${secretFields.map(escapeRegExp).join('|')})"`] : []),
    '\\\\u',
    ...values.filter((v) => v.length >= MIN_SUBSTRING_LENGTH).map(inJson),
    ...values.filter((v) => v.length < MIN_SUBSTRING_LENGTH).map((v) => `"${inJson(v)}"`),
  ];
  return new RegExp(parts.join('|'), 'iu');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
