import { daysSinceEpoch, newId, signLinkToken, unsubscribeAddress } from '@mailer/domain';
import { startInboundHarness, type InboundHarness } from './testing/inbound-harness';

/** The mailto: address of List-Unsubscribe, received by the listener against a real database. */
let h: InboundHarness;

beforeAll(async () => {
  h = await startInboundHarness();
});
afterAll(() => h.close());

const tokenOf = (deliveryId: string, issuedDay = daysSinceEpoch(new Date())) =>
  signLinkToken({ deliveryId, use: 'unsubscribe', link: 0, issuedDay }, h.deps.config.encryptionKey);
const addressOf = (token: string, domain: string) => unsubscribeAddress(token, domain, h.deps.config.returnPath.label);
const MESSAGE = 'From: ann@recipient.example\r\nTo: unsubscribe\r\nSubject: unsubscribe\r\n\r\nunsubscribe\r\n';

describe('a message to the mailto: address of List-Unsubscribe', () => {
  it('unsubscribes the recipient of its delivery, once, as the one-click POST does', async () => {
    const sent = await h.acceptedMessage('mailto.example', ['ann@recipient.example', 'bob@recipient.example']);
    const [ann] = sent.deliveries;
    const address = addressOf(tokenOf(ann!.id), 'mailto.example');
    const before = await h.reportCount('unsubscribe', 'applied');

    expect(await h.send([address], MESSAGE)).toEqual({ accepted: true, responseCode: 250 });
    const { db } = h.deps;
    const state = async () => ({
      deliveries: await db`select recipient, status, unsubscribed_at is not null as unsubscribed from deliveries where email_id = ${sent.emailId} order by position`,
      events: await db`select type, recipient from events where email_id = ${sent.emailId} and type = 'unsubscribed'`,
      suppressions: await db`select email, reason, stream, email_id from suppressions where account_id = ${sent.accountId}`,
    });
    const after = await state();
    expect(after).toEqual({
      deliveries: [
        { recipient: 'ann@recipient.example', status: 'accepted', unsubscribed: true },
        { recipient: 'bob@recipient.example', status: 'accepted', unsubscribed: false },
      ],
      events: [{ type: 'unsubscribed', recipient: 'ann@recipient.example' }],
      suppressions: [{ email: 'ann@recipient.example', reason: 'unsubscribed', stream: 'transactional', email_id: sent.emailId }],
    });
    expect(await h.reportCount('unsubscribe', 'applied')).toBe(before + 1);

    // A second message changes nothing, and is taken all the same.
    expect(await h.send([address], MESSAGE)).toEqual({ accepted: true, responseCode: 250 });
    expect(await state()).toEqual(after);
  });

  it('refuses at RCPT a token that is forged, altered, expired, or names no delivery of that domain', async () => {
    const sent = await h.acceptedMessage('refused.example', ['cy@recipient.example']);
    const token = tokenOf(sent.deliveries[0]!.id);
    const altered = `${token.slice(0, 30)}${token[30] === 'A' ? 'B' : 'A'}${token.slice(31)}`;
    const refused = [
      addressOf(altered, 'refused.example'),
      addressOf(token.toLowerCase(), 'refused.example'),
      addressOf(tokenOf(sent.deliveries[0]!.id, daysSinceEpoch(new Date()) - 61), 'refused.example'),
      addressOf(token, 'other.example'),
      addressOf(tokenOf(newId('delivery')), 'refused.example'),
    ];
    for (const address of refused) expect(await h.send([address], MESSAGE)).toMatchObject({ accepted: false, responseCode: 550 });
    const [delivery] = await h.deps.db`select unsubscribed_at from deliveries where email_id = ${sent.emailId}`;
    expect(delivery!.unsubscribed_at).toBeNull();
  });
});
