import { createPublicKey } from 'node:crypto';
import { generateDkimKeyPair } from './dkim-key';

describe('generateDkimKeyPair', () => {
  it('makes the key off the event loop: the loop turns while a key is made', async () => {
    let settled = false;
    const made = generateDkimKeyPair().then((key) => {
      settled = true;
      return key;
    });
    // Made on the event loop, the key would be there before this turn of it.
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    const key = await made;
    expect(key.algorithm).toBe('rsa');
    expect(key.selector).toMatch(/^mlr[0-9a-z]{8}$/);
    expect(key.privateKeyPem).toContain('BEGIN PRIVATE KEY');
  });

  it('publishes an Ed25519 key as the bare 32 bytes RFC 8463 puts in p=', async () => {
    const key = await generateDkimKeyPair('ed25519');
    expect(key.algorithm).toBe('ed25519');
    expect(Buffer.from(key.publicKey, 'base64')).toHaveLength(32);
    const derived = createPublicKey(key.privateKeyPem).export({ type: 'spki', format: 'der' });
    expect(derived.subarray(-32).toString('base64')).toBe(key.publicKey);
  });
});
