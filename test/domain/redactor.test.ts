import fc from 'fast-check';
import { REDACTED, Redactor, SECRET_FIELD_NAMES } from '../../src/domain/redactor';

describe('Redactor', () => {
  const redactor = new Redactor(['s3cr3t-value', 'abc', 'https://rpc.example/key/K3Y']);

  it('replaces a secret wherever it appears inside a string', () => {
    expect(redactor.redactText('calling with s3cr3t-value now')).toBe(`calling with ${REDACTED} now`);
    expect(redactor.redactText('s3cr3t-values3cr3t-value')).toBe(`${REDACTED}${REDACTED}`);
  });

  it('replaces values shorter than 4 characters only where they form a whole string', () => {
    expect(redactor.redactText('abc')).toBe(REDACTED);
    expect(redactor.redactText('abcdef')).toBe('abcdef');
  });

  it('replaces secret-typed fields whole, at any depth, whatever their content', () => {
    const out = redactor.redact({
      input: { url: 'https://api', headers: { 'x-api-key': 'anything' }, nested: [{ private_key: '0xdead' }] },
      Token: 'plain', env: { A: 'b' }, password: null,
    });
    expect(out).toEqual({
      input: { url: 'https://api', headers: REDACTED, nested: [{ private_key: REDACTED }] },
      Token: REDACTED, env: REDACTED, password: null,
    });
  });

  it('redacts keys, array items and leaves numbers and booleans alone', () => {
    expect(redactor.redact({ 's3cr3t-value': [1, true, 'x s3cr3t-value'] })).toEqual({ [REDACTED]: [1, true, `x ${REDACTED}`] });
  });

  it('prefers the longest secret when secrets overlap', () => {
    expect(redactor.redactText('rpc https://rpc.example/key/K3Y!')).toBe(`rpc ${REDACTED}!`);
  });

  it('does not mutate its input', () => {
    const input = { headers: { a: 'b' }, note: 's3cr3t-value' };
    redactor.redact(input);
    expect(input).toEqual({ headers: { a: 'b' }, note: 's3cr3t-value' });
  });

  it('escapes regular-expression characters in secrets', () => {
    const r = new Redactor(['a.b*c(d)']);
    expect(r.redactText('x a.b*c(d) y axbbc(d)')).toBe(`x ${REDACTED} y axbbc(d)`);
  });
});

describe('Redactor copy on write', () => {
  it('returns clean data as it is, and copies only the branches it changes', () => {
    const r = new Redactor(['s3cr3t-value']);
    const clean = { a: 'x', list: [{ b: 1 }], nested: { c: 'y' } };
    expect(r.redact(clean)).toBe(clean);
    const dirty = { keep: { c: 'y' }, change: { d: 'has s3cr3t-value' } };
    const out = r.redact(dirty);
    expect(out).not.toBe(dirty);
    expect(out.keep).toBe(dirty.keep);
    expect(out.change).toEqual({ d: 'has <redacted>' });
    expect(dirty.change.d).toBe('has s3cr3t-value');
  });

  it('redacts keys and secret-typed fields the same way however often they are met, and past many distinct keys', () => {
    const r = new Redactor(['s3cr3t-value']);
    const many: Record<string, string> = {};
    for (let i = 0; i < 3000; i++) many[`k${i}`] = 'clean';
    expect(r.redact(many)).toBe(many);
    for (let round = 0; round < 3; round++) {
      expect(r.redact({ Token: 'abc', 's3cr3t-value': 1, k2999: 'x s3cr3t-value', plain: 'y' }))
        .toEqual({ Token: REDACTED, [REDACTED]: 1, k2999: `x ${REDACTED}`, plain: 'y' });
    }
  });
});

describe('Redactor on JSON text', () => {
  const secretSets: string[][] = [[], ['s3cr3t-value', 'abc'], ['ab', 'x"y\\z', 'tab\there', 'K3Y-long']];

  it('gives the text JSON.stringify would give of the redacted value, for any JSON value and secrets', () => {
    // Values drawn from plain JSON, with secret field names (in any case) and secrets mixed in as keys and strings.
    const word = fc.oneof(
      fc.string(), fc.constantFrom(...SECRET_FIELD_NAMES), fc.constantFrom(...SECRET_FIELD_NAMES.map((f) => f.toUpperCase())),
      fc.constantFrom(...secretSets.flat()), fc.constantFrom('private_\u212Aey', 'has s3cr3t-value in it', '\u0000\u001f'),
    );
    const { tree } = fc.letrec((tie) => ({
      tree: fc.oneof({ depthSize: 'small' }, tie('leaf'), tie('array'), tie('object')),
      leaf: fc.oneof(word, fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null)),
      array: fc.array(tie('tree'), { maxLength: 4 }),
      object: fc.dictionary(word, tie('tree'), { maxKeys: 4 }),
    }));
    for (const secrets of secretSets) {
      const r = new Redactor(secrets);
      fc.assert(fc.property(tree, (value) => {
        const text = JSON.stringify(value);
        expect(r.redactJson(text)).toBe(JSON.stringify(r.redact(value)));
      }), { numRuns: 400 });
    }
  });

  it('returns text with nothing to redact as it is, and redacts what it finds', () => {
    const r = new Redactor(['s3cr3t-value', 'ab']);
    const clean = '{"run_id":"r1","relayers":["ops"],"block":12,"note":"abc"}';
    expect(r.redactJson(clean)).toBe(clean);
    expect(r.redactJson('{"note":"a s3cr3t-value b","k":"ab"}')).toBe(`{"note":"a ${REDACTED} b","k":"${REDACTED}"}`);
    expect(r.redactJson('{"Private_Key":"0x1","headers":null}')).toBe(`{"Private_Key":"${REDACTED}","headers":null}`);
  });

  it('catches a secret field name spelled with escapes, or with the Kelvin sign', () => {
    const r = new Redactor([]);
    expect(r.redactJson('{"tok\\u0065n":"t"}')).toBe(`{"token":"${REDACTED}"}`);
    expect(r.redactJson('{"private_\u212Aey":"0x1"}')).toBe(`{"private_\u212Aey":"${REDACTED}"}`);
  });

  it('matches, case-insensitively, every character that lower-cases to a letter of a secret field name', () => {
    // What the text check relies on: `redact` compares keys lower-cased, the check matches with the `iu` flags.
    const letters = new Set(SECRET_FIELD_NAMES.join(''));
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const c = String.fromCodePoint(cp);
      const lower = c.toLowerCase();
      if (lower.length === 1 && letters.has(lower) && !new RegExp(lower === '_' ? '_' : lower, 'iu').test(c)) {
        throw new Error(`U+${cp.toString(16)} lower-cases to ${lower} but does not match it`);
      }
    }
  });
});

describe('Redactor on a page of flat items (itemsRedaction)', () => {
  const secretSets: string[][] = [[], ['s3cr3t-value', 'abc'], ['ab', 'x"y\\z', 'tab\there', 'K3Y-long', 'run_id']];
  const KEYS = ['run_id', 'workflow', 'relayers', 'block', 'note'];
  const word = fc.oneof(
    fc.string(), fc.constantFrom(...secretSets.flat()), fc.constantFrom(...SECRET_FIELD_NAMES),
    fc.constantFrom('has s3cr3t-value in it', '\u0000\u001f', '},{', '},{"token":"t"}', '[{', '{', '\ud800'),
  );
  const flatValue = fc.oneof(word, fc.integer(), fc.constant(null), fc.array(word, { maxLength: 3 }));
  // Any JSON value, secret-typed keys included: what a nested value may be (the text is then not flat).
  const { tree } = fc.letrec((tie) => ({
    tree: fc.oneof({ depthSize: 'small' }, tie('leaf'), tie('array'), tie('object')),
    leaf: fc.oneof(word, fc.integer(), fc.boolean(), fc.constant(null)),
    array: fc.array(tie('tree'), { maxLength: 3 }),
    object: fc.dictionary(word, tie('tree'), { maxKeys: 3 }),
  }));
  const item = (value: fc.Arbitrary<unknown>): fc.Arbitrary<Record<string, unknown>> =>
    fc.subarray(KEYS, { minLength: 1 }).chain((keys) => fc.tuple(...keys.map(() => value)).map((vs) => Object.fromEntries(keys.map((k, i) => [k, vs[i]]))));

  it('gives the text redactJson gives, for flat items and for items with anything nested in them', () => {
    for (const secrets of secretSets) {
      const r = new Redactor(secrets);
      const redact = r.itemsRedaction(KEYS);
      fc.assert(fc.property(fc.array(item(fc.oneof({ arbitrary: flatValue, weight: 4 }, { arbitrary: tree, weight: 1 })), { maxLength: 5 }), (items) => {
        const text = JSON.stringify(items);
        expect(redact(text)).toBe(r.redactJson(text));
        expect(redact(text)).toBe(JSON.stringify(r.redact(items)));
      }), { numRuns: 500 });
    }
  });

  it('finds a secret-typed field nested in an item, wherever its brace opens', () => {
    const redact = new Redactor([]).itemsRedaction(KEYS);
    const pages = [
      [{ run_id: 'r1', note: { token: 't' } }],
      [{ run_id: 'r1', relayers: [{ token: 't' }] }],
      [{ run_id: 'r1', relayers: ['a', { token: 't' }] }],
      [{ run_id: 'r1', relayers: [{ a: 1 }, { token: 't' }] }],
      [{ run_id: 'r1' }, { run_id: 'r2', note: '},{', relayers: [{ Private_Key: 'k' }] }],
    ];
    for (const page of pages) {
      const text = JSON.stringify(page);
      expect(redact(text)).toContain(REDACTED);
      expect(redact(text)).toBe(JSON.stringify(new Redactor([]).redact(page)));
    }
  });

  it('scans flat items for secret values only, and returns clean text as it is', () => {
    const clean = '[{"run_id":"r1","workflow":"token","relayers":["headers"],"block":1},{"run_id":"r2","note":"a},{b"}]';
    expect(new Redactor([]).itemsRedaction(KEYS)(clean)).toBe(clean);
    expect(new Redactor(['s3cr3t-value']).itemsRedaction(KEYS)(clean)).toBe(clean);
    const r = new Redactor(['s3cr3t-value', 'ab']);
    expect(r.itemsRedaction(KEYS)('[{"run_id":"r1","note":"x s3cr3t-value y"},{"run_id":"ab"}]'))
      .toBe(`[{"run_id":"r1","note":"x ${REDACTED} y"},{"run_id":"${REDACTED}"}]`);
    expect(r.itemsRedaction(KEYS)('[{"note":"a\\u0000b s3cr3t-valu\\u0065"}]')).toBe(`[{"note":"a\\u0000b ${REDACTED}"}]`);
  });

  it('falls back to the whole scan when a declared key is secret-typed or holds a secret', () => {
    const text = '[{"run_id":"r1","Token":"t"}]';
    expect(new Redactor([]).itemsRedaction(['run_id', 'Token'])(text)).toBe(`[{"run_id":"r1","Token":"${REDACTED}"}]`);
    expect(new Redactor(['run_']).itemsRedaction(KEYS)('[{"run_id":"r1"}]')).toBe(`[{"${REDACTED}id":"r1"}]`);
  });
});
