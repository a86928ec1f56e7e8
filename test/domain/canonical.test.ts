import fc from 'fast-check';
import { canonicalEventJson, canonicalJson } from '../../src/domain/journal/canonical';

/** The hash of an event is the SHA-1 of its canonical text: the fast form must give the very same text. */
describe('canonicalEventJson', () => {
  it('is canonicalJson, text for text, for any JSON event (keys met in any order, at any depth, over many events)', () => {
    const event = fc.record({ type: fc.constantFrom('a', 'b', 'c') }).chain((head) =>
      fc.dictionary(fc.string(), fc.jsonValue()).map((rest) => ({ ...rest, ...head })));
    fc.assert(fc.property(fc.array(event, { minLength: 1, maxLength: 20 }), (events) => {
      for (const e of events) expect(canonicalEventJson(e)).toBe(canonicalJson(e));
    }), { numRuns: 300 });
  });

  it('sorts keys the same way at every depth and leaves out undefined values', () => {
    const e = { type: 'x.sorted', z: 1, a: { y: [{ b: 2, a: undefined, c: [3, { q: 1, p: 2 }] }], x: null }, m: 'é"\n' };
    expect(canonicalEventJson(e)).toBe('{"a":{"x":null,"y":[{"b":2,"c":[3,{"p":2,"q":1}]}]},"m":"é\\"\\n","type":"x.sorted","z":1}');
    expect(canonicalEventJson(e)).toBe(canonicalJson(e));
  });

  it('gives values JSON.stringify would write otherwise to canonicalJson (a Date, a __proto__ key, a function)', () => {
    const at = new Date(0);
    expect(canonicalEventJson({ type: 'x.odd', at })).toBe('{"at":{},"type":"x.odd"}');
    const proto = JSON.parse('{"type":"x.odd","__proto__":{"a":1},"b":{"c":2}}') as { type: string };
    expect(canonicalEventJson(proto)).toBe(canonicalJson(proto));
    const fn = { type: 'x.odd', f: () => 1 };
    expect(canonicalEventJson(fn)).toBe(canonicalJson(fn));
  });

  it('still gives canonicalJson once a type has brought more keys than a list holds', () => {
    for (let i = 0; i < 100; i++) {
      const e = { type: 'x.many', [`k${i}`]: i, [`j${99 - i}`]: { [`n${i}`]: i } };
      expect(canonicalEventJson(e)).toBe(canonicalJson(e));
    }
  });
});
