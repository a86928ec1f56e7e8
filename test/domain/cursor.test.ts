import { CursorCodec } from '../../src/domain/cursor';

describe('CursorCodec', () => {
  const codec = new CursorCodec('k'.repeat(32));
  const position = { createdAt: 1_795_000_000_000, id: 'run-42' };

  it('round-trips a position of its own list', () => {
    expect(codec.decode('runs', codec.encode('runs', position))).toEqual(position);
  });

  it('refuses a cursor of another list', () => {
    expect(codec.decode('txs', codec.encode('runs', position))).toBeUndefined();
  });

  it('refuses a tampered payload or signature', () => {
    const cursor = codec.encode('runs', position);
    const [payload, mac] = cursor.split('.') as [string, string];
    const forged = Buffer.from(JSON.stringify(['runs', 1, 'run-1'])).toString('base64url');
    expect(codec.decode('runs', `${forged}.${mac}`)).toBeUndefined();
    const flipped = mac.slice(0, -1) + (mac.endsWith('A') ? 'B' : 'A');
    expect(codec.decode('runs', `${payload}.${flipped}`)).toBeUndefined();
  });

  it('refuses a cursor signed with another installation key', () => {
    expect(new CursorCodec('x'.repeat(32)).decode('runs', codec.encode('runs', position))).toBeUndefined();
  });

  it('refuses malformed text', () => {
    for (const text of ['', 'abc', '.', 'a.b', `${'a'.repeat(600)}.b`]) expect(codec.decode('runs', text)).toBeUndefined();
  });
});
