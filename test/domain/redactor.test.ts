import { REDACTED, Redactor } from '../../src/domain/redactor';

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
