import { mailboxBelongsTo, normalizeMailDomain, parseMailbox } from './sender-email';

describe('parseMailbox', () => {
  it('normalizes the domain part and keeps the local part as given', () => {
    expect(parseMailbox(' Billing.Team@Example.COM ')).toEqual({
      local: 'Billing.Team',
      domain: 'example.com',
      address: 'Billing.Team@example.com',
      key: 'billing.team@example.com',
    });
  });

  it('converts an IDN domain part to its A-label', () => {
    expect(parseMailbox('Post@Bücher.DE')).toMatchObject({ address: 'Post@xn--bcher-kva.de', key: 'post@xn--bcher-kva.de' });
    expect(parseMailbox('post@XN--BCHER-KVA.de')).toMatchObject({ address: 'post@xn--bcher-kva.de' });
  });

  it('accepts atext and quoted local parts', () => {
    expect(parseMailbox("o'brien+news@example.com")).toMatchObject({ local: "o'brien+news" });
    expect(parseMailbox('"john doe"@example.com')).toMatchObject({ address: '"john doe"@example.com' });
    expect(parseMailbox('"a\\"b"@example.com')).toMatchObject({ local: '"a\\"b"' });
  });

  it('refuses strings that are not a mailbox', () => {
    const bad = [
      '',
      'example.com',
      '@example.com',
      'a@',
      'a b@example.com',
      '.a@example.com',
      'a..b@example.com',
      'a.@example.com',
      'Name <a@example.com>',
      'a@example.com.',
      'a@localhost',
      'a@[127.0.0.1]',
      'a@ex%61mple.com',
      'a@example.com/x',
      'a@exa_mple.com',
      'ä@example.com',
      '"unterminated@example.com',
      `${'a'.repeat(65)}@example.com`,
      `a@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.${'e'.repeat(60)}.com`,
      'a\r\n@example.com',
    ];
    for (const address of bad) expect(parseMailbox(address)).toBeUndefined();
  });

  it('refuses quoted local parts nodemailer would refuse or rewrite', () => {
    const unsendable = [
      '"x>y"@example.com',
      '"x<y"@example.com',
      '"x\\>y"@example.com',
      '" a"@example.com',
      '"a "@example.com',
      '"\\ a"@example.com',
      '" "@example.com',
      '"\\"a\\""@example.com',
      '"\\"\\""@example.com',
      '"a\r\nb"@example.com',
      '"a\0b"@example.com',
      '"a\tb"@example.com',
      '"ä"@example.com',
    ];
    for (const address of unsendable) expect(parseMailbox(address)).toBeUndefined();
  });

  it('keeps quoted local parts nodemailer sends as given', () => {
    const sendable = ['"a b"@example.com', '"a  b"@example.com', '"a,b;c:d"@example.com', '"a@b"@example.com', '"\\""@example.com', '"\\"a"@example.com', '"a\\\\"@example.com', '""@example.com', '"(a)[b]"@example.com'];
    for (const address of sendable) expect(parseMailbox(address)).toMatchObject({ address });
  });

  it('accepts a 64-octet local part', () => {
    expect(parseMailbox(`${'a'.repeat(64)}@example.com`)).toBeDefined();
  });
});

describe('mailboxBelongsTo', () => {
  const mailbox = (address: string) => parseMailbox(address)!;

  it('compares the normalized domain part with the domain name', () => {
    expect(mailboxBelongsTo(mailbox('a@EXAMPLE.com'), 'example.com')).toBe(true);
    expect(mailboxBelongsTo(mailbox('a@bücher.de'), 'xn--bcher-kva.de')).toBe(true);
  });

  it('refuses another domain, a subdomain or a parent', () => {
    expect(mailboxBelongsTo(mailbox('a@other.com'), 'example.com')).toBe(false);
    expect(mailboxBelongsTo(mailbox('a@mail.example.com'), 'example.com')).toBe(false);
    expect(mailboxBelongsTo(mailbox('a@example.com'), 'mail.example.com')).toBe(false);
  });
});

describe('normalizeMailDomain', () => {
  it('maps to lower-case A-labels', () => {
    expect(normalizeMailDomain('MÜNCHEN.de')).toBe('xn--mnchen-3ya.de');
    expect(normalizeMailDomain('ＥＸＡＭＰＬＥ.com')).toBe('example.com');
  });

  it('refuses single labels, bad labels and URL syntax', () => {
    for (const domain of ['localhost', 'a..b', '-a.com', 'a-.com', 'a.com.', 'a:25.com', 'a/b.com', 'xn--zz.com', '']) {
      expect(normalizeMailDomain(domain)).toBeUndefined();
    }
  });
});
