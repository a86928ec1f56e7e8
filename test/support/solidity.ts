import * as fs from 'node:fs';
import * as path from 'node:path';

interface SolcOutput {
  readonly errors?: ReadonlyArray<{ readonly severity: string; readonly formattedMessage: string }>;
  readonly contracts: Record<string, Record<string, { evm: { bytecode: { object: string } } }>>;
}

/**
 * The creation bytecode (0x-hex) of contract `name` in test/fixtures/contracts/`file`, compiled here with the `solc`
 * npm package: the tests deploy what the fixture's source says, not a blob checked in beside it.
 */
export function compileContract(file: string, name: string): string {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const solc = require('solc') as { compile(input: string): string };
  const content = fs.readFileSync(path.resolve(__dirname, '../fixtures/contracts', file), 'utf8');
  const input = { language: 'Solidity', sources: { [file]: { content } }, settings: { outputSelection: { '*': { '*': ['evm.bytecode.object'] } } } };
  const out = JSON.parse(solc.compile(JSON.stringify(input))) as SolcOutput;
  const errors = (out.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length) throw new Error(`solc: ${errors.map((e) => e.formattedMessage).join('\n')}`);
  const bytecode = out.contracts[file]?.[name]?.evm.bytecode.object;
  if (!bytecode) throw new Error(`solc: no contract ${name} in ${file}`);
  return `0x${bytecode}`;
}
