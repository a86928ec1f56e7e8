/**
 * CEL expressions checked where they stand (CONTRACT 8.1, 8.8): against the context a run gives them, so a type
 * error or a step id that is not readable there is refused when the config loads, not after a human approved.
 */
import { CelExpressions } from '../../../src/adapters/cel';

const cel = new CelExpressions();
const at = (steps: string[], laterSteps: string[] = [], extra: { reorg?: boolean; bool?: boolean } = {}) => ({ steps, laterSteps, ...extra });

describe('CelExpressions.check with a scope', () => {
  it('takes the context: trigger (dyn), earlier steps, run, relayers, u256', () => {
    const scope = at(['quote', 'pay'], ['notify'], { bool: true });
    for (const source of [
      "steps.pay.status == 'succeeded'", 'steps["quote"].output.price > 3', 'has(steps.pay.output)', 'int(trigger.payload.amount) > 0',
      'u256(trigger.payload.amount) > u256("10000000000000000000")', 'u256(trigger.payload.amount) * 2 > 0', "run.session == 'live'",
      "relayers.ops.address != ''", 'steps.quote.output.body.ok',
    ]) {
      expect({ source, problem: cel.check(source, scope) }).toEqual({ source, problem: undefined });
    }
  });

  it('refuses a type error, naming the operation and types', () => {
    expect(cel.check('1 + "a" > 0', at([]))).toBe('no such overload: int + string');
    expect(cel.check('1 + "a" > 0')).toBe('no such overload: int + string');
    expect(cel.check("steps.pay.status + 1 == 2", at(['pay']))).toBe('no such overload: string + int');
  });

  it('refuses a step id that is no step, or one that runs later, naming it', () => {
    expect(cel.check("steps.pya.status == 'succeeded'", at(['quote', 'pay'], ['notify'])))
      .toBe('steps.pya names no step of this workflow (steps before this point: quote, pay)');
    expect(cel.check('steps["notify"].status', at(['quote'], ['notify']))).toBe('steps.notify has not run yet at this point (it runs here or later)');
    expect(cel.check('steps.quote.status', at([], ['quote']))).toBe('steps.quote has not run yet at this point (it runs here or later)');
  });

  it('refuses a variable the context does not have, and reorg outside on_reorg', () => {
    expect(cel.check('trigegr.payload.amount', at([]))).toMatch(/^Unknown variable/);
    expect(cel.check('run.idd', at([]))).toMatch(/^No such key/);
    expect(cel.check('reorg.depth > 1', at([]))).toMatch(/^Unknown variable/);
    expect(cel.check('reorg.depth > 1', at([], [], { reorg: true }))).toBeUndefined();
  });

  it('an if must be a bool', () => {
    expect(cel.check('1 + 2', at([], [], { bool: true }))).toBe('must be a bool, not int');
    expect(cel.check('trigger.payload.ok', at([], [], { bool: true }))).toBeUndefined();
  });
});
