import fc from 'fast-check';
import { mimeSizeUpperBound } from '@mailer/domain';
import { buildMime } from '@mailer/message';

const text = fc.oneof(fc.string({ maxLength: 3000 }), fc.string({ unit: 'grapheme', maxLength: 2000 }), fc.constantFrom('='.repeat(5000), 'é\u0000\r\n'.repeat(700)));

describe('mimeSizeUpperBound', () => {
  it('is never below the size buildMime produces', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          name: fc.option(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 128 }), { nil: null }),
          subject: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 300 }),
          to: fc.array(fc.emailAddress(), { minLength: 1, maxLength: 5 }),
          cc: fc.array(fc.emailAddress(), { maxLength: 5 }),
          text: fc.option(text, { nil: null }),
          html: fc.option(text, { nil: null }),
          attachments: fc.array(
            fc.record({
              filename: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 255 }),
              contentType: fc.constantFrom('application/pdf', 'text/plain', 'image/png'),
              contentId: fc.option(fc.stringMatching(/^[a-z0-9.@]{1,40}$/), { nil: null }),
              content: fc.uint8Array({ maxLength: 5000 }).map((bytes) => Buffer.from(bytes)),
            }),
            { maxLength: 4 },
          ),
        }),
        async (m) => {
          const mime = buildMime({
            from: { address: 'hello@acme.test', name: m.name },
            to: m.to,
            cc: m.cc,
            subject: m.subject,
            text: m.text,
            html: m.html,
            attachments: m.attachments,
            messageId: '<em_0123456789012345678901@acme.test>',
            date: new Date('2026-11-22T10:00:00.000Z'),
          });
          const bound = mimeSizeUpperBound({
            fromAddress: 'hello@acme.test',
            displayNameBytes: Buffer.byteLength(m.name ?? ''),
            subject: m.subject,
            to: m.to,
            cc: m.cc,
            text: m.text,
            html: m.html,
            attachments: m.attachments.map((a) => ({ ...a, size: a.content.length })),
          });
          expect(bound).toBeGreaterThanOrEqual(mime.length);
        },
      ),
      { numRuns: 150 },
    );
  });
});
