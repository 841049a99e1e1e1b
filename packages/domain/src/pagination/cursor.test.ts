import { createCursorCodec } from './cursor';

const codec = createCursorCodec(Buffer.alloc(32, 7));
const position = { createdAt: new Date('2026-11-22T10:00:00.123Z'), id: 'em_abc' };

describe('cursor codec', () => {
  it('round-trips a position for the scope that issued it', () => {
    expect(codec.decode('emails:acc_1', codec.encode('emails:acc_1', position))).toEqual(position);
  });

  it('refuses a cursor of another list or account', () => {
    const cursor = codec.encode('emails:acc_1', position);
    expect(codec.decode('emails:acc_2', cursor)).toBeUndefined();
    expect(codec.decode('domains:acc_1', cursor)).toBeUndefined();
  });

  it('refuses tampered, garbage and foreign-key cursors', () => {
    const cursor = codec.encode('emails:acc_1', position);
    const [payload, tag] = cursor.split('.') as [string, string];
    const forged = Buffer.from(JSON.stringify([0, 'em_zzz'])).toString('base64url');
    expect(codec.decode('emails:acc_1', `${forged}.${tag}`)).toBeUndefined();
    expect(codec.decode('emails:acc_1', `${payload}.${'A'.repeat(22)}`)).toBeUndefined();
    expect(codec.decode('emails:acc_1', 'garbage')).toBeUndefined();
    expect(codec.decode('emails:acc_1', '')).toBeUndefined();
    expect(createCursorCodec(Buffer.alloc(32, 8)).decode('emails:acc_1', cursor)).toBeUndefined();
  });
});
