import { Webhook } from 'standardwebhooks';
import { verifyWebhook, WebhookVerificationError } from './webhooks';

const secret = `whsec_${Buffer.from('a secret of thirty-two bytes!!!!').toString('base64')}`;
const body = JSON.stringify({ type: 'email.delivered', data: { email_id: 'em_1' } });
const at = new Date('2026-11-23T10:00:00.000Z');

/** Headers as the standardwebhooks package signs them. */
function signed(id = 'msg_1', when = at, payload = body) {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(when.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(id, when, payload),
  };
}

describe('verifyWebhook', () => {
  it('accepts what the standardwebhooks package signs, and returns the payload', () => {
    expect(verifyWebhook(secret, signed(), body, { now: at })).toEqual(JSON.parse(body));
    expect(verifyWebhook(secret, new Headers(signed()), body, { now: new Date(at.getTime() + 299_000) })).toEqual(JSON.parse(body));
  });

  it('accepts any v1 signature of a space-separated list (a rotated secret)', () => {
    const headers = signed();
    headers['webhook-signature'] = `v1,${Buffer.alloc(32).toString('base64')} ${headers['webhook-signature']}`;
    expect(verifyWebhook(secret, headers, body, { now: at })).toEqual(JSON.parse(body));
  });

  it.each([
    ['a changed body', () => verifyWebhook(secret, signed(), body.replace('em_1', 'em_2'), { now: at })],
    ['another id', () => verifyWebhook(secret, { ...signed(), 'webhook-id': 'msg_2' }, body, { now: at })],
    ['another secret', () => verifyWebhook(`whsec_${Buffer.alloc(32).toString('base64')}`, signed(), body, { now: at })],
    ['an old timestamp', () => verifyWebhook(secret, signed(), body, { now: new Date(at.getTime() + 301_000) })],
    ['a future timestamp', () => verifyWebhook(secret, signed(), body, { now: new Date(at.getTime() - 301_000) })],
    ['a missing header', () => verifyWebhook(secret, { ...signed(), 'webhook-signature': undefined }, body, { now: at })],
    ['a v2 signature', () => verifyWebhook(secret, { ...signed(), 'webhook-signature': signed()['webhook-signature'].replace('v1,', 'v2,') }, body, { now: at })],
  ])('refuses %s', (_, verify) => {
    expect(verify).toThrow(WebhookVerificationError);
  });

  it('agrees with the standardwebhooks verifier on the same input', () => {
    const headers = signed('msg_x', new Date());
    expect(verifyWebhook(secret, headers, body)).toEqual(new Webhook(secret).verify(body, headers));
  });
});
