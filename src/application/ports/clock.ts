/** "Now", as epoch milliseconds (UTC); a port so that tests can hold time still. */
export interface Clock {
  now(): number;
}
export const Clock = Symbol('Clock');
