/** Pinned definitions (CONTRACT 8.7): kept without secrets, named by a stable hash, given the config's secrets back. */
import { pinDefinition, unpinDefinition } from '../../src/domain/engine/pinned-definition';
import { anHttpCall, aWorkflow } from '../mothers/workflows';

describe('pinned definitions', () => {
  const withKey = (key: string) => aWorkflow({ steps: [anHttpCall('call', { headers: { Authorization: key } })] });

  it('leave the secrets out: a rotated secret is the same definition, an edited step is another', () => {
    const pinned = pinDefinition(withKey('key-1'));
    expect(JSON.stringify(pinned.definition)).not.toContain('key-1');
    expect(pinDefinition(withKey('key-2')).hash).toBe(pinned.hash);
    expect(pinDefinition(aWorkflow({ steps: [anHttpCall('call', { headers: { Authorization: 'key-1' }, timeoutMs: 5 })] })).hash).not.toBe(pinned.hash);
  });

  it('get the configured secrets back by step and header; a header the config lost is named', () => {
    const pinned = pinDefinition(withKey('key-1')).definition;
    const restored = unpinDefinition(pinned, withKey('key-2'));
    expect(restored.missing).toEqual([]);
    expect(restored.definition.steps[0]).toMatchObject({ headers: { Authorization: 'key-2' } });
    expect(unpinDefinition(pinned, aWorkflow({ steps: [anHttpCall('call')] })).missing).toEqual([{ stepId: 'call', header: 'Authorization' }]);
  });
});
