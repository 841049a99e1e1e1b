import { seal, unseal } from './seal';

const key = Buffer.alloc(32, 1);

describe('seal', () => {
  it('round-trips and never stores the plaintext', () => {
    const sealed = seal(key, 'dkim', '-----BEGIN PRIVATE KEY-----');
    expect(sealed).not.toContain('PRIVATE');
    expect(unseal(key, 'dkim', sealed)).toBe('-----BEGIN PRIVATE KEY-----');
  });

  it('refuses another key, another purpose and altered ciphertext', () => {
    const sealed = seal(key, 'dkim', 'secret');
    expect(() => unseal(Buffer.alloc(32, 2), 'dkim', sealed)).toThrow();
    expect(() => unseal(key, 'other', sealed)).toThrow();
    const parts = sealed.split('.');
    parts[3] = Buffer.from('tampered').toString('base64url');
    expect(() => unseal(key, 'dkim', parts.join('.'))).toThrow();
  });
});
