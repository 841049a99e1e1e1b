import { newId } from '../ids';
import { envelopeSender, parseReturnPathAddress, readReturnPathRecipient, returnPathAddress, returnPathKey, returnPathToken, verifyReturnPathToken } from './return-path';

const key = returnPathKey(Buffer.alloc(32, 7));

describe('return-path tokens', () => {
  it('name the delivery, fit a local part and verify (whatever the case the address comes back in)', () => {
    for (let i = 0; i < 50; i++) {
      const id = newId('delivery');
      const token = returnPathToken(key, id);
      expect(token).toMatch(/^[0-9a-z]{50}$/);
      expect(verifyReturnPathToken(key, token)).toBe(id);
      expect(verifyReturnPathToken(key, token.toUpperCase())).toBe(id);
    }
  });

  it('refuse a token with another key, an altered id or MAC, or a malformed one', () => {
    const id = newId('delivery');
    const token = returnPathToken(key, id);
    expect(verifyReturnPathToken(returnPathKey(Buffer.alloc(32, 8)), token)).toBeUndefined();
    const flip = (at: number) => token.slice(0, at) + (token[at] === '0' ? '1' : '0') + token.slice(at + 1);
    expect(verifyReturnPathToken(key, flip(3))).toBeUndefined();
    expect(verifyReturnPathToken(key, flip(40))).toBeUndefined();
    expect(verifyReturnPathToken(key, token.slice(1))).toBeUndefined();
    expect(verifyReturnPathToken(key, `${'z'.repeat(26)}${token.slice(26)}`)).toBeUndefined();
    expect(verifyReturnPathToken(key, '')).toBeUndefined();
  });

  it('derive a key of their own from ENCRYPTION_KEY', () => {
    expect(returnPathKey(Buffer.alloc(32, 7))).toEqual(key);
    expect(key.equals(Buffer.alloc(32, 7))).toBe(false);
  });
});

describe('envelopeSender', () => {
  const options = { senderEmail: 'news@example.com', domain: 'example.com', deliveryId: newId('delivery'), key, label: 'bounces' };

  it('is the return-path address once the return path is verified, else the sender', () => {
    expect(envelopeSender({ ...options, returnPathVerified: false })).toBe('news@example.com');
    const address = envelopeSender({ ...options, returnPathVerified: true });
    expect(address).toBe(`b-${returnPathToken(key, options.deliveryId)}@bounces.example.com`);
    expect(address.split('@')[0]!.length).toBeLessThanOrEqual(64);
  });

  it('is read back by parseReturnPathAddress', () => {
    const address = envelopeSender({ ...options, returnPathVerified: true });
    expect(parseReturnPathAddress(address.toUpperCase(), 'bounces')).toEqual({ domain: 'example.com', token: returnPathToken(key, options.deliveryId) });
    expect(parseReturnPathAddress('someone@bounces.example.com', 'bounces')).toBeUndefined();
    expect(parseReturnPathAddress('b-x@example.com', 'bounces')).toBeUndefined();
    expect(parseReturnPathAddress('b-x@bounces.com', 'bounces')).toBeUndefined();
    expect(parseReturnPathAddress('no-at-sign', 'bounces')).toBeUndefined();
  });
});

describe('readReturnPathRecipient', () => {
  it('tells a verified return-path address from a forged one and from any other address', () => {
    const id = newId('delivery');
    const address = returnPathAddress(key, id, 'example.com', 'bounces');
    expect(readReturnPathRecipient(key, address, 'bounces')).toEqual({ kind: 'verified', deliveryId: id, domain: 'example.com' });
    expect(readReturnPathRecipient(key, address.replace('@', '0@'), 'bounces')).toEqual({ kind: 'forged' });
    expect(readReturnPathRecipient(returnPathKey(Buffer.alloc(32, 8)), address, 'bounces')).toEqual({ kind: 'forged' });
    expect(readReturnPathRecipient(key, 'b-feedback-loop@bounces.example.com', 'bounces')).toEqual({ kind: 'forged' });
    expect(readReturnPathRecipient(key, 'postmaster@bounces.example.com', 'bounces')).toEqual({ kind: 'other' });
  });
});
