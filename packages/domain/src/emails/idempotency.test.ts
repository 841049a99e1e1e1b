import fc from 'fast-check';
import { canonicalJson, isValidIdempotencyKey, requestFingerprint } from './idempotency';

describe('isValidIdempotencyKey', () => {
  it('takes 1..255 characters', () => {
    expect(isValidIdempotencyKey(undefined)).toBe(false);
    expect(isValidIdempotencyKey('')).toBe(false);
    expect(isValidIdempotencyKey('k')).toBe(true);
    expect(isValidIdempotencyKey('k'.repeat(255))).toBe(true);
    expect(isValidIdempotencyKey('k'.repeat(256))).toBe(false);
  });
});

describe('requestFingerprint', () => {
  it('ignores member order and white space, not values', () => {
    const a = JSON.parse('{"to":["a@x.test"],"content":{"plain":"hi","html":"<b>"}}');
    const b = JSON.parse('{ "content": { "html": "<b>", "plain": "hi" }, "to": [ "a@x.test" ] }');
    expect(requestFingerprint(a)).toBe(requestFingerprint(b));
    expect(requestFingerprint({ ...a, to: ['b@x.test'] })).not.toBe(requestFingerprint(a));
    expect(requestFingerprint({ to: ['a', 'b'] })).not.toBe(requestFingerprint({ to: ['b', 'a'] }));
  });

  it('is the same for any reordering of members', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const reordered = JSON.parse(JSON.stringify(value, (_k, v) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).reverse()) : v)));
        expect(canonicalJson(reordered)).toBe(canonicalJson(value));
      }),
    );
  });
});
