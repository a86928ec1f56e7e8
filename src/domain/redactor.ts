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
  /** What it must hold for `redact` to change a value in it (see itemsRedaction); undefined when no secret is configured. */
  private readonly suspectValue: RegExp | undefined;

  constructor(secretValues: readonly string[], secretFields: readonly string[] = SECRET_FIELD_NAMES) {
    const values = [...new Set(secretValues.filter((v) => v.length > 0))];
    const long = values.filter((v) => v.length >= MIN_SUBSTRING_LENGTH).sort((a, b) => b.length - a.length);
    this.pattern = long.length ? new RegExp(long.map(escapeRegExp).join('|'), 'g') : undefined;
    this.whole = new Set(values);
    this.secretFields = new Set(secretFields.map((f) => f.toLowerCase()));
    this.suspect = suspectPattern(values, [...this.secretFields]);
    this.suspectValue = values.length ? suspectValuePattern(values) : undefined;
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

  /**
   * The redaction of a list page's items as JSON text, `[{…},{…}]`, for items whose keys are all among `keys` and
   * whose values are strings, numbers, booleans, null or arrays of those (the history lists' items): the text
   * `redactJson` gives, from a narrower scan. In such items a secret can only be in a value or spelled inside a key,
   * never a secret-typed field (their keys are fixed and none is one), so only secret values and `\u` escapes are
   * looked for, case-sensitively; with no secret configured there is nothing they can hold. Whether the text is
   * such items is checked, not assumed: a brace that does not open an item of the top-level array (a nested object,
   * or a brace inside a string) sends the text to `redactJson`, as do keys of which one is a secret-typed field.
   */
  itemsRedaction(keys: readonly string[]): (json: string) => string {
    const plainKeys = keys.every((k) => {
      const rule = this.keyRule(k);
      return rule.key === k && !rule.secret;
    });
    if (!plainKeys) return (json) => this.redactJson(json);
    return (json) => {
      if (!onlyItemObjects(json)) return this.redactJson(json);
      const suspect = this.suspectValue;
      if (!suspect || !suspect.test(json)) return json;
      return JSON.stringify(this.walk(JSON.parse(json)));
    };
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
  const fields = secretFields.length ? [`"(?:${secretFields.map(escapeRegExp).join('|')})"`] : [];
  return new RegExp([...fields, ...valueParts(values)].join('|'), 'iu');
}

/**
 * What JSON text must hold for a secret to be in one of its values (see itemsRedaction): what suspectPattern looks
 * for but secret-typed field names, matched case-sensitively, as `redactText` compares.
 */
function suspectValuePattern(values: readonly string[]): RegExp {
  return new RegExp(valueParts(values).join('|'));
}

/** Any `\u` escape, a secret of 4+ characters anywhere, a shorter one as a whole string, each as JSON writes it. */
function valueParts(values: readonly string[]): string[] {
  const inJson = (v: string): string => escapeRegExp(JSON.stringify(v).slice(1, -1));
  return [
    '\\\\u',
    ...values.filter((v) => v.length >= MIN_SUBSTRING_LENGTH).map(inJson),
    ...values.filter((v) => v.length < MIN_SUBSTRING_LENGTH).map((v) => `"${inJson(v)}"`),
  ];
}

const CLOSE_BRACE = 0x7d;
const COMMA = 0x2c;

/**
 * Whether every `{` of `json` (JSON text without spaces, as JSON.stringify and SQLite write it) opens an element of
 * a top-level array of objects: at index 1, or right after `},`. A nested object opens after `:` (a member's value),
 * `[` (an array's first element) or `,` after something that is not an object; so text that passes holds no object
 * but the array's own elements. A brace inside a string may fail it too (the caller then scans the whole text).
 */
function onlyItemObjects(json: string): boolean {
  for (let at = json.indexOf('{'); at !== -1; at = json.indexOf('{', at + 1)) {
    if (at === 1 && json.charCodeAt(0) === 0x5b) continue;
    if (json.charCodeAt(at - 1) !== COMMA || json.charCodeAt(at - 2) !== CLOSE_BRACE) return false;
  }
  return true;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
