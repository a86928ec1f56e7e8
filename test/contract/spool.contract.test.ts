import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileSpools } from '../../src/adapters/file-spools';
import { InMemorySpools } from '../fakes/in-memory-spools';
import { spoolsContract } from './spool.contract';

spoolsContract('in-memory fake', async () => {
  const spools = new InMemorySpools();
  return { spools, allFreed: async () => spools.live === 0, close: async () => {} };
});

spoolsContract('files in a temporary folder', async () => {
  const parent = mkdtempSync(join(tmpdir(), 'chainflow-spools-test-'));
  return {
    spools: new FileSpools(parent),
    allFreed: async () => readdirSync(parent).length === 0,
    close: async () => rmSync(parent, { recursive: true, force: true }),
  };
});
