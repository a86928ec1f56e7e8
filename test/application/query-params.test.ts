/**
 * The query parser used by every list (API and CLI alike): a parameter named `__proto__` is an own key of the
 * raw query (as Express and JSON.parse build it) and must be refused as unknown, under its own name.
 */
import { QueryParser } from '../../src/application/query/query-params';
import { InvalidInputError } from '../../src/domain/errors';

const parser = new QueryParser({
  workflow: { kind: 'text', description: 'workflow name' },
  limit: { kind: 'limit', min: 1, max: 500, default: 50, description: 'page size' },
}, () => 0);

function errorOf(raw: Record<string, unknown>): InvalidInputError {
  try {
    parser.parse(raw);
  } catch (err) {
    if (err instanceof InvalidInputError) return err;
    throw err;
  }
  throw new Error('accepted');
}

describe('QueryParser and __proto__', () => {
  it('refuses __proto__ as an unknown parameter', () => {
    const err = errorOf(JSON.parse('{"__proto__":"x"}'));
    expect(err.field).toBe('__proto__');
    expect(err.message).toMatch(/^__proto__: unknown parameter \(known: workflow, limit\)$/);
  });

  it('names a repeated __proto__ as itself', () => {
    expect(errorOf(JSON.parse('{"__proto__":["a","b"]}')).field).toBe('__proto__');
  });

  it('parses into an object without a prototype, known parameters as given', () => {
    const parsed = parser.parse({ workflow: 'payouts' });
    expect(Object.getPrototypeOf(parsed)).toBeNull();
    expect({ ...parsed }).toEqual({ workflow: 'payouts', limit: 50 });
  });

  it('does not echo a long or odd parameter name', () => {
    const name = `x${'y'.repeat(200)}`;
    const err = errorOf({ [name]: '1' });
    expect(err.message).not.toContain(name);
    expect(err.message).toMatch(/^query: unknown parameter \(name not shown\)/);
  });
});
