/** Ids of runs, step runs, sends, approvals and sessions (CONTRACT section 5). */
export const ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$';
const ID = new RegExp(ID_PATTERN);

export function isValidId(value: unknown): value is string {
  return typeof value === 'string' && ID.test(value);
}
