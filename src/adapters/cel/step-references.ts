import type { ExpressionScope } from '../../application/ports/expressions';

/** An AST node of @marcbachmann/cel-js, as far as finding `steps.<id>` needs it. */
interface Node {
  readonly op?: unknown;
  readonly args?: unknown;
}

const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null && 'op' in value;
const isSteps = (node: unknown): boolean => isNode(node) && node.op === 'id' && node.args === 'steps';

/** The step ids an expression reads: `steps.pay`, `steps.?pay`, `steps["pay"]` (a computed key is not known here). */
export function stepReferences(ast: unknown): string[] {
  const found: string[] = [];
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(walk);
    if (!isNode(value)) return;
    const args = Array.isArray(value.args) ? value.args : [];
    if ((value.op === '.' || value.op === '.?') && isSteps(args[0]) && typeof args[1] === 'string') found.push(args[1]);
    if ((value.op === '[]' || value.op === '[?]') && isSteps(args[0]) && isNode(args[1]) && args[1].op === 'value' && typeof args[1].args === 'string') {
      found.push(args[1].args);
    }
    walk(value.args);
  };
  walk(ast);
  return found;
}

/**
 * Why the step ids an expression reads are not all readable where it stands: a step that runs later has no result
 * yet, and an id that is no step (a typo) never will; each would fail the run after a human approved it.
 */
export function stepReferenceProblem(ast: unknown, scope: ExpressionScope): string | undefined {
  for (const id of stepReferences(ast)) {
    if (scope.steps.includes(id)) continue;
    if (scope.laterSteps?.includes(id)) return `steps.${id} has not run yet at this point (it runs here or later)`;
    const earlier = scope.steps.length ? `steps before this point: ${scope.steps.join(', ')}` : 'no step runs before this point';
    return `steps.${id} names no step of this workflow (${earlier})`;
  }
  return undefined;
}
