// The one place that loads web3.js. Upstream web3.js is archived: it stays behind the chain ports, inside
// src/adapters/chain, and it is loaded on first use (require costs ~250 ms) so that commands which never
// touch a chain do not pay for it. The `import('web3')` below is a type only and is erased at compile time.
export type Web3Module = typeof import('web3');

let loaded: Web3Module | undefined;

export function web3(): Web3Module {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  loaded ??= require('web3') as Web3Module;
  return loaded;
}
