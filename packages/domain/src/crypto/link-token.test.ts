import { newId } from '../ids';
import { daysSinceEpoch, LINK_TOKEN_VALID_DAYS, signLinkToken, verifyLinkToken } from './link-token';

const key = Buffer.alloc(32, 3);
const today = daysSinceEpoch(new Date('2026-12-02T10:00:00Z'));

describe('link tokens', () => {
  const deliveryId = newId('delivery');
  const made = { deliveryId, use: 'unsubscribe' as const, link: 0, issuedDay: today };

  it('reads back what it was made with, and fits a local part with u- in front', () => {
    const text = signLinkToken(made, key);
    expect(text).toMatch(/^[A-Za-z0-9_-]{54}$/);
    expect(`u-${text}`.length).toBeLessThanOrEqual(64);
    expect(verifyLinkToken(text, key, today)).toEqual(made);
    const click = { ...made, use: 'click' as const, link: 7 };
    expect(verifyLinkToken(signLinkToken(click, key), key, today)).toEqual(click);
  });

  it('is good for 60 days after the day it was made, and not before it', () => {
    const text = signLinkToken(made, key);
    expect(verifyLinkToken(text, key, today + LINK_TOKEN_VALID_DAYS)).toEqual(made);
    expect(verifyLinkToken(text, key, today + LINK_TOKEN_VALID_DAYS + 1)).toBeUndefined();
    expect(verifyLinkToken(text, key, today - 1)).toBeUndefined();
  });

  it('refuses another key, every altered character and what is not a token', () => {
    const text = signLinkToken(made, key);
    expect(verifyLinkToken(text, Buffer.alloc(32, 4), today)).toBeUndefined();
    for (let i = 0; i < text.length; i++) {
      const altered = `${text.slice(0, i)}${text[i] === 'A' ? 'B' : 'A'}${text.slice(i + 1)}`;
      expect(verifyLinkToken(altered, key, today)).toBeUndefined();
    }
    expect(verifyLinkToken(text.slice(1), key, today)).toBeUndefined();
    expect(verifyLinkToken(`${text}A`, key, today)).toBeUndefined();
    expect(verifyLinkToken('not a token', key, today)).toBeUndefined();
  });

  it('differs per delivery, use and link, so one never stands for another', () => {
    const text = signLinkToken(made, key);
    expect(signLinkToken({ ...made, deliveryId: newId('delivery') }, key)).not.toBe(text);
    expect(signLinkToken({ ...made, use: 'open' }, key)).not.toBe(text);
    expect(signLinkToken({ ...made, link: 1 }, key)).not.toBe(text);
  });

  it('is made for delivery ids only', () => {
    expect(() => signLinkToken({ ...made, deliveryId: newId('email') }, key)).toThrow(/delivery id/);
  });
});
