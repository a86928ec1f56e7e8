/** A config document as parsed from YAML: maps of maps, lists and scalars. */
export type Raw = Record<string, unknown>;

export function isMap(value: unknown): value is Raw {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

/** Position of a dotted path in the file, as key indexes per level; keys not in the file sort last. */
export function documentOrder(raw: unknown, at: string): number[] {
  const ranks: number[] = [];
  let node = raw;
  for (const segment of at.split(/\.|(?=\[)/)) {
    const index = /^\[(\d+)\]$/.exec(segment);
    const rank = index ? Number(index[1]) : isMap(node) ? Object.keys(node).indexOf(segment) : -1;
    ranks.push(rank < 0 ? Number.MAX_SAFE_INTEGER : rank);
    node = index ? (Array.isArray(node) ? node[rank] : undefined) : isMap(node) ? node[segment] : undefined;
  }
  return ranks;
}

/** Orders two positions of documentOrder: the file's order. */
export function compareOrder(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

/** The names a reference could have used, for a message that names what was not found. */
export function configuredNames(names: ReadonlyMap<string, unknown>): string {
  return names.size > 0 ? ` (configured: ${[...names.keys()].join(', ')})` : ' (none configured)';
}
