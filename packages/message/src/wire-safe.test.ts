import fc from 'fast-check';
import { simpleParser } from 'mailparser';
import { mimeSizeUpperBound } from '@mailer/domain';
import { buildMime, type OutgoingAttachment, type OutgoingMessage } from './build-mime';

const base: OutgoingMessage = {
  from: { address: 'hello@acme.test', name: 'Acme Support' },
  to: ['ann@example.test'],
  cc: [],
  subject: 'Your receipt',
  text: 'Thanks!',
  html: null,
  attachments: [],
  messageId: '<abc@acme.test>',
  date: new Date('2026-11-22T10:00:00.000Z'),
};

const build = (shape: Partial<OutgoingMessage>) => buildMime({ ...base, ...shape }).toString('latin1');

/** Every header line of every part (the blocks between a boundary line and the empty line after it). */
function headerLines(mime: string): string[] {
  const lines = mime.split('\r\n');
  const out: string[] = [];
  let inHeaders = true;
  for (const line of lines) {
    if (line === '') inHeaders = false;
    else if (line.startsWith('----_NmP')) inHeaders = true;
    else if (inHeaders) out.push(line);
  }
  return out;
}

/** A part's headers and body by a header it has. */
function part(mime: string, header: RegExp): { headers: string; body: string } {
  const found = mime.split(/\r\n----_NmP[^\r]*\r\n/).find((p) => header.test(p.split('\r\n\r\n')[0]!));
  if (!found) throw new Error(`no part with ${header}`);
  const [headers, ...body] = found.split('\r\n\r\n');
  return { headers: headers!, body: body.join('\r\n\r\n') };
}

const attachment = (filename: string, contentType: string, content: Buffer | string) => ({ filename, contentType, content: Buffer.from(content) });

describe('line breaks', () => {
  it.each([
    ['a bare CR in plain', { text: 'one\rtwo\r\nthree\nfour\r' }],
    ['bare LFs in plain with long lines (quoted-printable)', { text: `${'ä'.repeat(100)}\n\r\n${'x'.repeat(200)}\r` }],
    ['a bare CR in html', { text: null, html: '<p>one\rtwo</p>\n<p>three</p>' }],
  ])('sends %s as CRLF', (_, shape) => {
    const mime = build(shape);
    expect(mime).not.toMatch(/\r(?!\n)|(?<!\r)\n/);
  });

  it("encodes a text attachment's bare CR and LF as data, so only CRLF goes on the wire", () => {
    const mime = build({ attachments: [attachment('a.txt', 'text/plain', 'one\rtwo\nthree\r\nfour')] });
    expect(mime).not.toMatch(/\r(?!\n)|(?<!\r)\n/);
    expect(part(mime, /name=a\.txt/).body).toBe('one=0Dtwo=0Athree\r\nfour');
  });

  it('keeps text whose line breaks are all CRLF as it is', () => {
    expect(part(build({ text: 'one\r\ntwo\r\n' }), /text\/plain/).body).toBe('one\r\ntwo\r\n');
  });
});

describe('header lines', () => {
  const subjects = [
    ['998 ASCII characters without a space', 'a'.repeat(998)],
    ['998 ASCII characters with a few spaces', `${'b'.repeat(500)} ${'c'.repeat(497)}`],
    ['998 ASCII words', 'word '.repeat(199) + 'end'],
    ['998 non-ASCII characters', 'ä'.repeat(998)],
    ['998 characters of emoji and ASCII', '😀x'.repeat(499)],
  ];
  it.each(subjects)('are at most 78 octets with a subject of %s', (_, subject) => {
    const lines = headerLines(build({ subject }));
    expect(lines.filter((l) => Buffer.byteLength(l, 'latin1') > 78)).toEqual([]);
  });

  it.each([
    ['255 ASCII characters', `${'f'.repeat(251)}.pdf`],
    ['255 ASCII characters with spaces', `${'a b '.repeat(62)}xyz.pdf`],
    ['255 non-ASCII characters', `${'ü'.repeat(251)}.pdf`],
    ['255 characters that need quoting', `${'x"y;'.repeat(62)}z.pdf`],
  ])('are at most 78 octets with a filename of %s', (_, filename) => {
    const mime = build({ attachments: [attachment(filename, 'application/pdf', '%PDF'), { ...attachment(filename, 'image/png', 'png'), contentId: 'logo' }] });
    expect(headerLines(mime).filter((l) => l.length > 78)).toEqual([]);
  });

  it('leave short ASCII subjects and filenames as nodemailer writes them', () => {
    const mime = build({ subject: 'Your receipt', attachments: [attachment('receipt.pdf', 'application/pdf', '%PDF')] });
    expect(mime).toContain('\r\nSubject: Your receipt\r\n');
    expect(mime).toContain('Content-Type: application/pdf; name=receipt.pdf\r\n');
  });
});

/** The attachments' bytes as a receiving client decodes them (mailparser), in order. */
async function decodedAttachments(attachments: OutgoingAttachment[]): Promise<Buffer[]> {
  const parsed = await simpleParser(buildMime({ ...base, attachments }));
  return parsed.attachments.map((a) => a.content);
}

describe('attachments', () => {
  const LINES_40 = Array.from({ length: 40 }, (_, i) => `row ${i},value ${i}`);
  const contents: [string, Buffer][] = [
    ['40 lines ending in LF', Buffer.from(`${LINES_40.join('\n')}\n`)],
    ['CRLF line breaks', Buffer.from(`${LINES_40.join('\r\n')}\r\n`)],
    ['bare CRs', Buffer.from('one\rtwo\rthree\r')],
    ['mixed line breaks and no final newline', Buffer.from('a\r\nb\nc\rd\n\re\r\r\nf')],
    ['trailing white space before line breaks', Buffer.from('a \nb\t\r\nc \rd  ')],
    ['NUL and 8-bit bytes', Buffer.from([0x61, 0x00, 0x0a, 0xc3, 0xa4, 0x0d, 0xff, 0xfe, 0x80, 0x0a, 0x00])],
    ['UTF-8 text with LF', Buffer.from('Grüße aus Köln\nПривет\n你好\n')],
    ['a line over 998 octets', Buffer.from(`${'x'.repeat(2000)}\n${'=.'.repeat(600)}`)],
    ['dots at line starts', Buffer.from('.\n..\r\n.\r\n')],
  ];
  const types = ['text/plain', 'text/csv', 'text/html', 'application/json'];

  it.each(types.flatMap((type) => contents.map(([name, content]) => [type, name, content] as const)))(
    'arrive byte-identical: %s with %s',
    async (contentType, _, content) => {
      const [decoded] = await decodedAttachments([{ filename: 'file', contentType, content }]);
      expect(decoded!.toString('latin1')).toBe(content.toString('latin1'));
    },
  );

  // Inline parts of non-text types only: mailparser reads an inline text part as body text.
  it('arrive byte-identical whatever their bytes, inline or not', async () => {
    const bytes = fc.oneof(
      fc.uint8Array({ maxLength: 500 }),
      fc.string({ unit: fc.constantFrom('a', 'ä', ' ', '\t', '\r', '\n', '\r\n', '.', '=', '\0', '€', 'x'.repeat(90)), maxLength: 200 }).map((s) => Buffer.from(s)),
    );
    const attachment = fc
      .record({
        filename: fc.constant('file'),
        contentType: fc.constantFrom(...types, 'text/calendar', 'message/rfc822', 'image/png'),
        contentId: fc.option(fc.constant('part'), { nil: null }),
        content: bytes.map((b) => Buffer.from(b)),
      })
      .map((a) => (a.contentType.startsWith('text/') ? { ...a, contentId: null } : a));
    await fc.assert(
      fc.asyncProperty(fc.array(attachment, { minLength: 1, maxLength: 3 }), async (attachments) => {
        const decoded = await decodedAttachments(attachments);
        expect(decoded.map((b) => b.toString('latin1'))).toEqual(attachments.map((a) => a.content.toString('latin1')));
      }),
      { numRuns: 300 },
    );
  });

  it('base64-encodes message/* attachments, 8-bit and long lines included', () => {
    const eml = `Subject: Grüße\r\n\r\n${'x'.repeat(5000)}\r\n`;
    const { headers, body } = part(build({ attachments: [attachment('forwarded.eml', 'message/rfc822', eml)] }), /message\/rfc822/);
    expect(headers).toContain('Content-Transfer-Encoding: base64');
    expect(Buffer.from(body, 'base64').toString()).toBe(eml);
  });

  it('gives UTF-8 text attachments a charset and quoted-printable, not base64', () => {
    const mime = build({
      attachments: [attachment('rows.csv', 'text/csv', `${'1234567890,'.repeat(20)}\n`), attachment('notes.txt', 'text/plain', 'Grüße aus Köln\r\n')],
    });
    const csv = part(mime, /text\/csv/);
    expect(csv.headers).toMatch(/^Content-Type: text\/csv; charset=utf-8; name=rows\.csv$/m);
    expect(csv.headers).toContain('Content-Transfer-Encoding: quoted-printable');
    const notes = part(mime, /name=notes\.txt/);
    expect(notes.headers).toMatch(/^Content-Type: text\/plain; charset=utf-8; name=notes\.txt$/m);
    expect(notes.headers).toContain('Content-Transfer-Encoding: quoted-printable');
    expect(notes.body).toBe('Gr=C3=BC=C3=9Fe aus K=C3=B6ln\r\n');
  });

  it('labels text attachments that are not UTF-8 unknown-8bit (RFC 1428) and keeps their bytes', () => {
    const latin1 = Buffer.from('Gr\xfc\xdfe\n', 'latin1');
    const { headers, body } = part(build({ attachments: [{ filename: 'old.txt', contentType: 'text/plain', content: latin1 }] }), /name=old\.txt/);
    expect(headers).toMatch(/^Content-Type: text\/plain; charset=unknown-8bit; name=old\.txt$/m);
    expect(Buffer.from(body, 'base64').equals(latin1)).toBe(true);
  });
});

describe('HTML-only messages', () => {
  it('get a text/plain alternative generated from the HTML', () => {
    const mime = build({ text: null, html: '<h1>Order shipped</h1><p>Track it <a href="https://acme.test/t/1">here</a>.</p>' });
    expect(mime).toMatch(/Content-Type: multipart\/alternative/);
    expect(part(mime, /text\/plain/).body).toBe('ORDER SHIPPED\r\n\r\nTrack it here [https://acme.test/t/1].');
    expect(part(mime, /text\/html/).body).toContain('<h1>Order shipped</h1>');
  });

  it('never get an alternative longer than the HTML', () => {
    const html = '<hr>'.repeat(1000);
    const text = part(build({ text: null, html }), /text\/plain/);
    expect(text.headers).toContain('Content-Transfer-Encoding: 7bit');
    expect(Buffer.byteLength(text.body)).toBeLessThanOrEqual(Buffer.byteLength(html));
  });

  it('keep the text they were given when they have one', () => {
    expect(part(build({ text: 'Mine.', html: '<p>Other</p>' }), /text\/plain/).body).toBe('Mine.');
  });
});

describe("intake's size bound", () => {
  // One letter makes nodemailer choose quoted-printable, where each `=` takes three bytes.
  const equalsSigns = `a${'='.repeat(100_000)}`;
  it.each<[string, Partial<OutgoingMessage>]>([
    ['an HTML-only message (two parts of quoted-printable)', { text: null, html: equalsSigns }],
    ['a text attachment (quoted-printable)', { attachments: [attachment('a.txt', 'text/plain', equalsSigns)] }],
    ['a text attachment of bare line breaks', { attachments: [attachment('a.txt', 'text/plain', '\n'.repeat(100_000))] }],
  ])('is never below the built size of %s', (_, shape) => {
    const message = { ...base, ...shape };
    const bound = mimeSizeUpperBound({
      fromAddress: message.from.address,
      displayNameBytes: Buffer.byteLength(message.from.name ?? ''),
      subject: message.subject,
      to: message.to,
      cc: message.cc,
      text: message.text ?? null,
      html: message.html ?? null,
      attachments: message.attachments.map((a) => ({ ...a, contentId: null, size: a.content.length })),
    });
    expect(bound).toBeGreaterThanOrEqual(buildMime(message).length);
  });
});

describe('generating the text alternative', () => {
  it('survives nesting that overflowed the converter\'s stack', () => {
    expect(build({ text: null, html: `${'<div>'.repeat(200_000)}x` })).toContain('Content-Type: text/plain; charset=utf-8');
  });

  it('converts the first 128 KiB of the HTML, whose conversion time grows with the square of its nesting', () => {
    const html = `${'<p>A paragraph of the message.</p>'.repeat(5_000)}<p>the end</p>`;
    const text = part(build({ text: null, html }), /text\/plain/).body;
    expect(text).toContain('A paragraph of the message.');
    expect(text).not.toContain('the end');
  });
});
