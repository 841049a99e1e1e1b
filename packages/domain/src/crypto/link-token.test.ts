import { newId } from '../ids';
import { signLinkToken, daysSinceEpoch, verifyLinkToken } from './link-token';

const key = Buffer.alloc(32, 3);
const now = new Date('2026-12-02T10:00:00Z');

describe('link tokens', () => {
  const deliveryId = newId('delivery');
  const made = { use: 'click' as const, deliveryId, link: 7, issuedDay: daysSinceEpoch(now) };

  it('reads back what it was made with, within a local part with u- in front', () => {
    const text = signLinkToken(key, made);
    expect(`u-${text}`.length).toBeLessThanOrEqual(64);
    expect(verifyLinkToken(key, text, 'click', now, 60)).toEqual(made);
  });

  it('refuses another key, another use, an altered byte and an expired token', () => {
    const text = signLinkToken(key, made);
    expect(verifyLinkToken(Buffer.alloc(32, 4), text, 'click', now, 60)).toBeUndefined();
    expect(verifyLinkToken(key, text, 'open', now, 60)).toBeUndefined();
    const altered = `${text.slice(0, 10)}${text[10] === 'A' ? 'B' : 'A'}${text.slice(11)}`;
    expect(verifyLinkToken(key, altered, 'click', now, 60)).toBeUndefined();
    expect(verifyLinkToken(key, text, 'click', new Date(now.getTime() + 61 * 86_400_000), 60)).toBeUndefined();
    expect(verifyLinkToken(key, text, 'click', new Date(now.getTime() + 60 * 86_400_000), 60)).toEqual(made);
    expect(verifyLinkToken(key, 'not a token', 'click', now, 60)).toBeUndefined();
  });

  it('changes with the link, so one link token never opens another link', () => {
    expect(signLinkToken(key, { ...made, link: 8 })).not.toBe(signLinkToken(key, made));
  });
});
