import { daysSinceEpoch, signLinkToken } from '../crypto/link-token';
import { newId } from '../ids';
import { readUnsubscribeRecipient, unsubscribeAddress } from './unsubscribe-address';

const key = Buffer.alloc(32, 5);
const today = daysSinceEpoch(new Date('2026-12-02T10:00:00Z'));

describe('the mailto: unsubscribe address', () => {
  const deliveryId = newId('delivery');
  const token = signLinkToken({ deliveryId, use: 'unsubscribe', link: 0, issuedDay: today }, key);
  const address = unsubscribeAddress(token, 'shop.test', 'bounces');

  it('names the delivery of its token at the domain whose return-path host it is', () => {
    expect(address).toBe(`u-${token}@bounces.shop.test`);
    expect(readUnsubscribeRecipient(key, address, 'bounces', today)).toEqual({ kind: 'verified', deliveryId, domain: 'shop.test' });
    expect(readUnsubscribeRecipient(key, `U-${token}@Bounces.Shop.Test.`, 'bounces', today)).toEqual({ kind: 'verified', deliveryId, domain: 'shop.test' });
  });

  it('refuses a token altered (also in case only), made for another use or expired', () => {
    expect(readUnsubscribeRecipient(key, `u-${token.toLowerCase()}@bounces.shop.test`, 'bounces', today)).toEqual({ kind: 'forged' });
    const click = signLinkToken({ deliveryId, use: 'click', link: 1, issuedDay: today }, key);
    expect(readUnsubscribeRecipient(key, `u-${click}@bounces.shop.test`, 'bounces', today)).toEqual({ kind: 'forged' });
    expect(readUnsubscribeRecipient(key, address, 'bounces', today + 61)).toEqual({ kind: 'forged' });
  });

  it('knows no other address', () => {
    for (const other of ['ann@shop.test', `b-${token}@bounces.shop.test`, `u-${token}@shop.test`, `u-${token}@bounces.test`, 'u-x']) {
      expect(readUnsubscribeRecipient(key, other, 'bounces', today)).toEqual({ kind: 'other' });
    }
  });
});
