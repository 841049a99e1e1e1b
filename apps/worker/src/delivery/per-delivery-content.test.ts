import { daysSinceEpoch, newId, verifyLinkToken } from '@mailer/domain';
import { dkimVerdict, testSigningDomain } from '../testing/verify-dkim';
import { composeSignedCopies, type CompositionRequest } from './compose-message';
import { createDkimSigner } from './dkim-signer';
import { carriesUnsubscribe, perDeliveryContent, perDeliveryHeaders } from './per-delivery-content';

const key = testSigningDomain('shop.test');
const dkim = createDkimSigner(key.encryptionKey);
const now = new Date('2026-12-02T10:00:00Z');
const options = { publicUrl: 'https://mail.example.com', returnPathLabel: 'bounces', encryptionKey: key.encryptionKey, now };
const broadcast = { type: 'broadcast' as const, unsubscribe: false };

const request = (headers: { name: string; value: string }[] = []): CompositionRequest => ({
  message: {
    from: { address: 'news@shop.test', name: 'Shop' },
    to: ['ann@example.test', 'bob@example.test'],
    cc: [],
    replyTo: [],
    headers,
    subject: 'What is new',
    text: 'Hello',
    html: null,
    attachments: [],
    messageId: '<em_0123456789012345678901@shop.test>',
    date: now,
  },
  domain: key.domain,
});

/** A header field of a message as it is on the wire, unfolded. */
const field = (message: Buffer, name: string) => {
  const head = message.toString('latin1').split('\r\n\r\n')[0]!.replace(/\r\n[ \t]/g, ' ');
  return head.split('\r\n').find((line) => line.toLowerCase().startsWith(`${name.toLowerCase()}:`));
};

describe('per-delivery content', () => {
  it('is for broadcast messages and transactional ones sent with unsubscribe', () => {
    expect(carriesUnsubscribe(broadcast)).toBe(true);
    expect(carriesUnsubscribe({ type: 'transactional', unsubscribe: true })).toBe(true);
    expect(carriesUnsubscribe({ type: 'transactional', unsubscribe: false })).toBe(false);
    expect(perDeliveryHeaders({ type: 'transactional', unsubscribe: false }, [], 'shop.test', [newId('delivery')], options)).toBeUndefined();
  });

  it('gives each delivery List-Unsubscribe links of its own token, and One-Click', () => {
    const ids = [newId('delivery'), newId('delivery')];
    const fields = perDeliveryHeaders(broadcast, [], 'shop.test', ids, options)!;
    for (const id of ids) {
      const [unsubscribe, post] = fields.get(id)!;
      const match = /^<https:\/\/mail\.example\.com\/u\/([A-Za-z0-9_-]+)>,\r\n <mailto:u-([A-Za-z0-9_-]+)@bounces\.shop\.test>$/.exec(unsubscribe!.value);
      expect(match?.[1]).toBe(match?.[2]);
      expect(verifyLinkToken(match![1]!, key.encryptionKey, daysSinceEpoch(now))).toMatchObject({ deliveryId: id, use: 'unsubscribe' });
      expect(`u-${match![1]}`.length).toBeLessThanOrEqual(64);
      expect(post).toEqual({ name: 'List-Unsubscribe-Post', value: 'List-Unsubscribe=One-Click' });
    }
  });

  it("keeps the customer's own List-Unsubscribe and adds none", () => {
    const own = [{ name: 'list-unsubscribe', value: '<https://shop.test/out>' }];
    expect(perDeliveryHeaders(broadcast, own, 'shop.test', [newId('delivery')], options)).toBeUndefined();
    expect(perDeliveryHeaders(broadcast, [{ name: 'List-Unsubscribe-Post', value: 'List-Unsubscribe=One-Click' }], 'shop.test', [newId('delivery')], options)).toBeUndefined();
  });

  it('adds the fields before signing: each copy is signed over its own List-Unsubscribe fields', async () => {
    const ids = [newId('delivery'), newId('delivery')];
    const fields = perDeliveryHeaders(broadcast, [], 'shop.test', ids, options)!;
    const copies = await composeSignedCopies(request(), ids.map((id) => fields.get(id)!), dkim);
    expect(copies).toHaveLength(2);
    for (const [i, copy] of copies.entries()) {
      expect(await dkimVerdict(copy, key)).toBe('pass');
      const signature = field(copy, 'DKIM-Signature')!;
      const signed = /\bh=([^;]+)/.exec(signature)![1]!.split(':').map((name) => name.trim().toLowerCase());
      expect(signed).toEqual(expect.arrayContaining(['list-unsubscribe', 'list-unsubscribe-post']));
      expect(field(copy, 'List-Unsubscribe')).toContain(fields.get(ids[i]!)![0]!.value.replace('\r\n', ''));
      expect(field(copy, 'List-Unsubscribe-Post')).toBe('List-Unsubscribe-Post: List-Unsubscribe=One-Click');
    }
    expect(field(copies[0]!, 'List-Unsubscribe')).not.toBe(field(copies[1]!, 'List-Unsubscribe'));
    // Altering one copy's link breaks its signature.
    const forged = Buffer.from(copies[0]!.toString('latin1').replace('/u/', '/u/x'), 'latin1');
    expect(await dkimVerdict(forged, key)).not.toBe('pass');
  });

  it('leaves a message without fields as it is', () => {
    const message = Buffer.from('Subject: x\r\n\r\nbody\r\n');
    expect(perDeliveryContent(message, [])).toBe(message);
    expect(perDeliveryContent(message, [{ name: 'X-A', value: 'b' }]).toString()).toBe('X-A: b\r\nSubject: x\r\n\r\nbody\r\n');
  });
});
