import fc from 'fast-check';
import { buildMime, mimeTree, writeMime, type OutgoingMessage } from './build-mime';
import { crlf } from './wire-safe';

const base = {
  from: { address: 'hello@acme.test', name: 'Acme Support' },
  to: ['ann@example.test'],
  cc: ['bob@example.test'],
  subject: 'Your receipt',
  text: 'Thanks!',
  html: '<p>Thanks! <img src="cid:logo"></p>',
  messageId: '<abc@acme.test>',
  date: new Date('2026-11-22T10:00:00.000Z'),
};

describe('buildMime', () => {
  it('builds headers, alternatives, attachments and inline parts without a Bcc header', () => {
    const mime = buildMime({
      ...base,
      attachments: [
        { filename: 'receipt.pdf', contentType: 'application/pdf', content: Buffer.from('%PDF-1.4') },
        { filename: 'logo.png', contentType: 'image/png', contentId: 'logo', content: Buffer.from([137, 80, 78, 71]) },
      ],
    }).toString();
    const [headers] = mime.split('\r\n\r\n');
    expect(headers).toContain('From: Acme Support <hello@acme.test>');
    expect(headers).toContain('To: ann@example.test');
    expect(headers).toContain('Cc: bob@example.test');
    expect(headers).toContain('Subject: Your receipt');
    expect(headers).toContain('Message-ID: <abc@acme.test>');
    expect(headers).toContain('Date: Sun, 22 Nov 2026 10:00:00 +0000');
    expect(mime).not.toMatch(/^Bcc:/im);
    expect(mime).toContain('multipart/alternative');
    expect(mime).toContain('filename=receipt.pdf');
    expect(mime).toContain('Content-ID: <logo>');
  });

  it('writes the empty group To: undisclosed-recipients:; for a message whose recipients are all BCC', () => {
    const [headers] = buildMime({ ...base, to: [], cc: [], attachments: [] }).toString().split('\r\n\r\n');
    expect(headers!.split('\r\n').filter((line) => /^(To|Cc|Bcc):/i.test(line))).toEqual(['To: "undisclosed-recipients":;']);
  });

  it('writes Reply-To and the extra headers, every line within 998 octets and 7-bit', () => {
    const unsubscribe = `<https://acme.test/u/${'a'.repeat(900)}>, <mailto:unsub@acme.test?subject=${'b'.repeat(100)}>`;
    const mime = buildMime({
      ...base,
      attachments: [],
      replyTo: ['support@acme.test', 'help@acme.test'],
      headers: [
        { name: 'List-Unsubscribe', value: unsubscribe },
        { name: 'List-Unsubscribe-Post', value: 'List-Unsubscribe=One-Click' },
        { name: 'References', value: '<a@acme.test> <b@acme.test>' },
        { name: 'In-Reply-To', value: '<b@acme.test>' },
        { name: 'X-Long', value: 'z'.repeat(998) },
        { name: 'X-Greeting', value: 'héllo wörld' },
      ],
    });
    const [headers] = mime.toString('latin1').split('\r\n\r\n');
    const unfolded = headers!.replace(/\r\n[ \t]/g, ' ');
    expect(headers).toContain('Reply-To: support@acme.test, help@acme.test');
    expect(unfolded).toContain(`List-Unsubscribe: ${unsubscribe}`);
    expect(headers).toContain('List-Unsubscribe-Post: List-Unsubscribe=One-Click');
    expect(headers).toContain('References: <a@acme.test> <b@acme.test>');
    expect(headers).toContain('In-Reply-To: <b@acme.test>');
    expect(unfolded).toMatch(/^X-Long: =\?UTF-8\?Q\?z+/m);
    expect(unfolded).toMatch(/^X-Greeting: =\?UTF-8\?/m);
    for (const line of mime.toString('latin1').split('\r\n')) expect(line.length).toBeLessThanOrEqual(998);
    expect([...mime].every((byte) => byte < 0x80)).toBe(true);
  });

  it('uses the bare address when there is no display name', () => {
    const mime = buildMime({ ...base, from: { address: 'hello@acme.test' }, attachments: [] }).toString();
    expect(mime).toMatch(/^From: hello@acme.test\r$/m);
  });

  /** The bytes nodemailer's own `build()` streams out for the same tree (same boundaries). */
  const streamed = (message: OutgoingMessage) => {
    const tree = mimeTree(message);
    const direct = writeMime(tree);
    return tree.build().then((bytes) => ({ direct, bytes }));
  };

  it.each<[string, Partial<OutgoingMessage>]>([
    ['text only, 7bit', { html: null }],
    ['html only', { text: null }],
    ['no body at all', { text: null, html: null }],
    ['long lines, trailing whitespace and dots', { text: `${'a'.repeat(200)} \n.\n..leading dot\t\r\nend  `, html: null }],
    // The encoder holds trailing whitespace back and does not wrap a short last line again.
    ['a last line that fits once its trailing spaces are encoded', { text: `${'😀'.repeat(3)}${'x'.repeat(81)}€  `, html: null }],
    ['non-Latin text, subject and name', { text: 'Grüße, 你好 — 👋\n'.repeat(40), subject: 'Ihre Bestellung ✓', from: { address: 'hello@acme.test', name: 'Äcme Süpport' } }],
    ['a text body over 64 KB (the QP encoder works in slices)', { text: `${'Zeile mit Umlaut ä und Leerzeichen am Ende \n'.repeat(2_000)}ß`, html: null }],
    ['an attachment over the base64 wrapper\'s chunk', { attachments: [{ filename: 'big.bin', contentType: 'application/octet-stream', content: Buffer.alloc(200_000, 7) }] }],
    [
      'attachments, inline parts and a text attachment',
      {
        attachments: [
          { filename: 'receipt.pdf', contentType: 'application/pdf', content: Buffer.from('%PDF-1.4') },
          { filename: 'logo.png', contentType: 'image/png', contentId: 'logo', content: Buffer.from([137, 80, 78, 71]) },
          { filename: 'rows.csv', contentType: 'text/csv', content: Buffer.from('a;b\r\nä;ü \r\n') },
          { filename: 'empty.txt', contentType: 'text/plain', content: Buffer.alloc(0) },
        ],
      },
    ],
  ])('writes the bytes nodemailer streams: %s', async (_, shape) => {
    const { direct, bytes } = await streamed({ ...base, attachments: [], ...shape });
    expect(direct.equals(bytes)).toBe(true);
  });

  // Bar a text attachment's lone CR or LF, which writeMime encodes as data and build() sends as a line break.
  it('writes the bytes nodemailer streams, for any text, html and attachments', async () => {
    const text = fc.option(fc.string({ unit: fc.constantFrom('a', 'ä', ' ', '\t', '\n', '\r', '.', '=', '€', '😀', 'x'.repeat(80)), maxLength: 300 }));
    const attachment = fc
      .record({
        filename: fc.constantFrom('a.bin', 'b.txt', 'c.png'),
        contentType: fc.constantFrom('application/octet-stream', 'text/plain', 'image/png'),
        contentId: fc.option(fc.constant('part')),
        content: fc.uint8Array({ maxLength: 400 }).map((bytes) => Buffer.from(bytes)),
      })
      .map((a) => (a.contentType === 'text/plain' ? { ...a, content: Buffer.from(crlf(a.content.toString('latin1')), 'latin1') } : a));
    await fc.assert(
      fc.asyncProperty(text, text, fc.array(attachment, { maxLength: 3 }), async (plain, html, attachments) => {
        const { direct, bytes } = await streamed({ ...base, text: plain, html, attachments });
        expect(direct.toString('latin1')).toBe(bytes.toString('latin1'));
      }),
      { numRuns: 1000 },
    );
  });
});
