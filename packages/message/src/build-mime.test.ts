import { buildMime } from './build-mime';

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
  it('builds headers, alternatives, attachments and inline parts without a Bcc header', async () => {
    const mime = (
      await buildMime({
        ...base,
        attachments: [
          { filename: 'receipt.pdf', contentType: 'application/pdf', content: Buffer.from('%PDF-1.4') },
          { filename: 'logo.png', contentType: 'image/png', contentId: 'logo', content: Buffer.from([137, 80, 78, 71]) },
        ],
      })
    ).toString();
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

  it('uses the bare address when there is no display name', async () => {
    const mime = (await buildMime({ ...base, from: { address: 'hello@acme.test' }, attachments: [] })).toString();
    expect(mime).toMatch(/^From: hello@acme.test\r$/m);
  });
});
