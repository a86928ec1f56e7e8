/** The same record with its read-only fields writable: for an entity's own transitions, and nothing else. */
export type Mutable<T> = { -readonly [K in keyof T]: T[K] };
