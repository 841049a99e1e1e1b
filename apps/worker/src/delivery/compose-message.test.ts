import fc from 'fast-check';
import { checkExtraHeaders } from '@mailer/domain';
import type { OutgoingAttachment } from '@mailer/message';
import { dkimVerdict, testSigningDomain } from '../testing/verify-dkim';
import type { DeliveryContext, MessageContent } from '@mailer/db';
import { buildMime } from '@mailer/message';
import { composeSignedMessage, compositionRequest } from './compose-message';
import { createDkimSigner } from './dkim-signer';

const key = testSigningDomain();
const dkim = createDkimSigner(key.encryptionKey);

/** Text as API clients send it: any Unicode, line breaks of every kind, long lines, trailing white space. */
const text = fc.string({
  unit: fc.oneof(
    { weight: 8, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }) },
    { weight: 3, arbitrary: fc.constantFrom('\r', '\n', '\r\n', '\n\r', ' ', '\t', ' \r\n', '\t\n', '.', '..\r\n.', '=', 'From ') },
    { weight: 1, arbitrary: fc.constantFrom('x'.repeat(1200), 'ü'.repeat(500), `${' '.repeat(80)}\n`, '<p>', '</p>', '<br>', '<hr>', '<li>') },
  ),
  maxLength: 120,
});

/** What intake accepts as a subject: 1..998 characters, no control characters. */
const subject = fc
  .oneof(
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 200 }),
    fc.string({ unit: fc.constantFrom('a', 'Z', '0', ' ', '-', 'ß', '😀', '"', '=?'), minLength: 1, maxLength: 998 }),
    fc.constantFrom('a'.repeat(998), 'ä'.repeat(998), `${'x'.repeat(997)}😀`),
  )
  .map((s) => [...s.replace(/[\p{Cc}]/gu, '')].slice(0, 998).join('') || 'Hi');

/** What intake accepts as a filename: 1..255 characters without `/`, `\` or control characters. */
const filename = fc
  .oneof(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 255 }), fc.constantFrom('f'.repeat(255), `${'ü'.repeat(250)}.txt`, 'a "b"; c.eml'))
  .map((s) => [...s.replace(/[\p{Cc}/\\]/gu, '')].slice(0, 255).join('') || 'file');

const attachment: fc.Arbitrary<OutgoingAttachment> = fc.record({
  filename,
  contentType: fc.constantFrom('text/plain', 'text/csv', 'text/html', 'message/rfc822', 'message/delivery-status', 'application/pdf', 'image/png'),
  contentId: fc.option(fc.constantFrom('logo', 'part.1@acme.test'), { nil: null }),
  content: fc.oneof(
    text.map((t) => Buffer.from(t)),
    fc.uint8Array({ maxLength: 600 }).map((bytes) => Buffer.from(bytes)),
    fc.constant(Buffer.from(`Subject: Grüße\n\n${'y'.repeat(5000)}\r.\r\n`)),
  ),
});

/** Extra header fields as intake accepts them (checkExtraHeaders), any text in the X- ones. */
const extraHeaders = fc
  .array(
    fc.oneof(
      fc.tuple(fc.constantFrom('X-Campaign', 'X-Entity-Ref-ID'), fc.oneof(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 300 }), fc.constant('z'.repeat(998)))),
      fc.tuple(
        fc.constant('List-Unsubscribe'),
        fc.constantFrom('<https://acme.test/u/abc>', `<https://acme.test/unsubscribe/${'a'.repeat(40)}>, <mailto:unsubscribe@acme.test?subject=${'b'.repeat(30)}>`),
      ),
      fc.tuple(fc.constant('List-Id'), fc.constant('Acme news <news.acme.test>')),
      fc.tuple(fc.constantFrom('References', 'In-Reply-To'), fc.constantFrom('<a@acme.test>', '<a@acme.test> <b.1@acme.test> <c-2@acme.test>')),
    ),
    { maxLength: 4 },
  )
  .map((pairs) => checkExtraHeaders(Object.fromEntries(pairs)))
  .filter((checked) => checked.ok)
  .map((checked) => (checked.ok ? checked.value : []));

/** A bare CR or LF: the SMTP data stream would send it as CRLF, so the bytes sent would not be the bytes signed. */
const BARE_LINE_BREAK = /\r(?!\n)|(?<!\r)\n/;

describe('composed and signed messages', () => {
  it('verify with an independent DKIM verifier (mailauth) and go on the wire as they are, whatever their content', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          subject,
          name: fc.option(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }), { nil: null }),
          // HTML-only, text-only and both.
          body: fc.oneof(
            fc.record({ plain: text, html: fc.constant(null) }),
            fc.record({ plain: fc.constant(null), html: text }),
            fc.record({ plain: text, html: text }),
          ),
          attachments: fc.array(attachment, { maxLength: 3 }),
          headers: extraHeaders,
          replyTo: fc.constantFrom<string[]>([], ['help@acme.test'], ['a@acme.test', 'b@example.test']),
        }),
        async ({ subject, name, body: { plain, html }, attachments, headers, replyTo }) => {
          const signed = await composeSignedMessage(
            {
              message: {
                from: { address: 'hello@acme.test', name: name && name.replace(/[\p{Cc}]/gu, '') },
                to: ['ann@example.test'],
                cc: ['bob@example.test'],
                replyTo,
                headers,
                subject,
                text: plain,
                html,
                attachments,
                messageId: '<em_0123456789012345678901@acme.test>',
                date: new Date('2026-11-22T10:00:00.000Z'),
              },
              domain: key.domain,
            },
            dkim,
          );
          const wire = signed.toString('latin1');
          expect(wire).not.toMatch(BARE_LINE_BREAK);
          const lines = wire.split('\r\n');
          expect(lines.filter((line) => line.length > 998)).toEqual([]);
          // No 8-bit data: nothing here announces 8BITMIME.
          expect(wire).not.toMatch(/[\x80-\xff]/);
          const header = wire.slice(0, wire.indexOf('\r\n\r\n')).split('\r\n');
          expect(header.filter((line) => line.length > 78)).toEqual([]);
          expect(await dkimVerdict(signed, key)).toBe('pass');
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('compositionRequest', () => {
  it('writes the display names intake kept into To, Cc and Reply-To', () => {
    const request = compositionRequest(
      { email: { fromEmail: 'hello@acme.test', fromName: 'Acme', createdAt: new Date('2026-12-01T00:00:00Z') }, domain: { name: 'acme.test' } } as unknown as DeliveryContext,
      {
        to: ['ann@example.test', 'bob@example.test'],
        cc: ['jo@example.test'],
        replyTo: ['help@acme.test'],
        displayNames: { 'ann@example.test': 'Ann Example', 'jo@example.test': 'Doe, Jo', 'help@acme.test': 'Help' },
        headers: [],
        subject: 'Hi',
        text: 'Hi',
        html: null,
        messageId: '<m@acme.test>',
        hasAttachments: false,
        signingKeys: [],
      } as unknown as MessageContent,
      [],
    );
    const head = buildMime(request.message).toString('utf8').split('\r\n\r\n')[0]!;
    expect(head).toContain('To: Ann Example <ann@example.test>, bob@example.test');
    expect(head).toContain('Cc: "Doe, Jo" <jo@example.test>');
    expect(head).toContain('Reply-To: Help <help@acme.test>');
  });
});
