import { daysSinceEpoch, newId, verifyLinkToken } from '@mailer/domain';
import { dkimVerdict, testSigningDomain } from '../testing/verify-dkim';
import { composeSignedCopies, type CompositionRequest } from './compose-message';
import { createDkimSigner } from './dkim-signer';
import { trackedLinks } from '@mailer/message';
import { carriesTracking, carriesUnsubscribe, needsOwnCopies, perDeliveryContent, perDeliveryHeaders, perDeliveryHtml } from './per-delivery-content';

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
    const copies = await composeSignedCopies(request(), ids.map((id) => ({ fields: fields.get(id)! })), dkim);
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

describe('tracked copies (docs/api-decisions.md, "Opens and clicks")', () => {
  const html = '<p><a href="https://shop.test/sale">Sale</a> <a href="mailto:help@shop.test">Help</a> <a href="https://shop.test/sale">again</a></p>';
  const tracked = { test: false, track: { opens: true, clicks: true } };
  const today = daysSinceEpoch(now);

  it('are made for a message that tracks opens or clicks, never for a test message', () => {
    expect(carriesTracking(tracked)).toBe(true);
    expect(carriesTracking({ test: false, track: { opens: false, clicks: true } })).toBe(true);
    expect(carriesTracking({ test: false, track: { opens: false, clicks: false } })).toBe(false);
    expect(carriesTracking({ ...tracked, test: true })).toBe(false);
    expect(needsOwnCopies({ ...tracked, type: 'transactional', unsubscribe: false })).toBe(true);
    expect(needsOwnCopies({ test: false, track: { opens: false, clicks: false }, type: 'transactional', unsubscribe: false })).toBe(false);
    expect(perDeliveryHtml(tracked, null, 'track.shop.test', [{ id: newId('delivery'), kind: 'to' }], options)).toBeUndefined();
  });

  it('carry the pixel and the rewritten links of their own delivery; BCC gets none', () => {
    const to = newId('delivery');
    const bcc = newId('delivery');
    const copies = perDeliveryHtml(tracked, html, 'track.shop.test', [{ id: to, kind: 'to' }, { id: bcc, kind: 'bcc' }], options)!;
    expect(copies.has(bcc)).toBe(false);
    const copy = copies.get(to)!;
    expect(copy).toContain('<a href="mailto:help@shop.test">Help</a>');
    const links = trackedLinks(copy).map((url) => new URL(url));
    expect(links.map((url) => url.origin)).toEqual(['https://track.shop.test', 'https://track.shop.test']);
    expect(links.map((url) => verifyLinkToken(url.pathname.replace('/c/', ''), key.encryptionKey, today))).toEqual([
      { deliveryId: to, use: 'click', link: 0, issuedDay: today },
      { deliveryId: to, use: 'click', link: 1, issuedDay: today },
    ]);
    const pixel = /<img src="https:\/\/track\.shop\.test\/o\/([^"]+)" width="1" height="1" alt="">$/.exec(copy)!;
    expect(verifyLinkToken(pixel[1]!, key.encryptionKey, today)).toEqual({ deliveryId: to, use: 'open', link: 0, issuedDay: today });
  });

  it('track only what is asked for', () => {
    const id = newId('delivery');
    const opens = perDeliveryHtml({ test: false, track: { opens: true, clicks: false } }, html, 'track.shop.test', [{ id, kind: 'cc' }], options)!.get(id)!;
    expect(opens.startsWith(html)).toBe(true);
    const clicks = perDeliveryHtml({ test: false, track: { opens: false, clicks: true } }, html, 'track.shop.test', [{ id, kind: 'cc' }], options)!.get(id)!;
    expect(clicks).not.toContain('<img');
  });

  it('are signed over the rewritten HTML, the plain part as the message had it', async () => {
    const id = newId('delivery');
    const own = perDeliveryHtml(tracked, html, 'track.shop.test', [{ id, kind: 'to' }], options)!.get(id)!;
    const base = request();
    const htmlOnly: CompositionRequest = { ...base, message: { ...base.message, text: null, html } };
    const [copy, plain] = await composeSignedCopies(htmlOnly, [{ fields: [], html: own }, { fields: [] }], dkim);
    expect(await dkimVerdict(copy!, key)).toBe('pass');
    const wire = copy!.toString('latin1').replace(/=\r\n/g, '');
    expect(wire).toContain('track.shop.test/c/');
    // The text alternative is made from the HTML as given: it names the original link.
    const textPart = (message: Buffer) => message.toString('latin1').split(/Content-Type: text\/plain[^\r]*\r\n/)[1]!.split('\r\n--')[0];
    expect(textPart(copy!)).toContain('https://shop.test/sale');
    expect(textPart(copy!)).not.toContain('track.shop.test');
    expect(textPart(copy!)).toBe(textPart(plain!));
  });
});
