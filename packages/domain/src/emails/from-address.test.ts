import { formatMailbox, parseFromField } from './from-address';

describe('parseFromField', () => {
  it('accepts a bare address and normalizes its domain', () => {
    expect(parseFromField(' Hello@Acme.TEST ')).toEqual({
      ok: true,
      value: { mailbox: expect.objectContaining({ address: 'Hello@acme.test', key: 'hello@acme.test' }), displayName: null },
    });
  });

  it('accepts a display name, plain or quoted with escapes', () => {
    expect(parseFromField('Acme Support <hello@acme.test>')).toMatchObject({ ok: true, value: { displayName: 'Acme Support' } });
    expect(parseFromField('"Doe, \\"J\\"" <hello@acme.test>')).toMatchObject({ ok: true, value: { displayName: 'Doe, "J"' } });
    expect(parseFromField('Zoë <hello@bücher.de>')).toMatchObject({
      ok: true,
      value: { displayName: 'Zoë', mailbox: { address: 'hello@xn--bcher-kva.de' } },
    });
  });

  it('treats an empty display name as none', () => {
    expect(parseFromField('<hello@acme.test>')).toMatchObject({ ok: true, value: { displayName: null } });
    expect(parseFromField('"  " <hello@acme.test>')).toMatchObject({ ok: true, value: { displayName: null } });
  });

  it('refuses header injection anywhere', () => {
    for (const input of ['Evil\r\nBcc: x@y.test <hello@acme.test>', 'hello@acme.test\n', '"A\0" <hello@acme.test>']) {
      expect(parseFromField(input)).toEqual({ ok: false, problems: ['must not contain CR, LF or NUL (header injection)'] });
    }
  });

  it('explains what is wrong', () => {
    expect(parseFromField('not an address')).toEqual({ ok: false, problems: ['not a valid email address'] });
    expect(parseFromField('Name <nope>')).toEqual({ ok: false, problems: ['not a valid email address inside <…>'] });
    expect(parseFromField('"Unbalanced <hello@acme.test>')).toMatchObject({ ok: false });
    expect(parseFromField('A "b" <hello@acme.test>')).toMatchObject({ ok: false });
    expect(parseFromField(`${'x'.repeat(129)} <hello@acme.test>`)).toEqual({
      ok: false,
      problems: ['display name must be at most 128 characters (has 129)'],
    });
    expect(parseFromField('Tab\there <hello@acme.test>')).toEqual({ ok: false, problems: ['display name must not contain control characters'] });
  });
});

describe('formatMailbox', () => {
  it('quotes a display name only when it needs it', () => {
    expect(formatMailbox('a@acme.test', null)).toBe('a@acme.test');
    expect(formatMailbox('a@acme.test', 'Acme Support')).toBe('Acme Support <a@acme.test>');
    expect(formatMailbox('a@acme.test', 'Doe, "J"')).toBe('"Doe, \\"J\\"" <a@acme.test>');
    expect(formatMailbox('a@acme.test', 'Zoë')).toBe('"Zoë" <a@acme.test>');
  });

  it('round-trips through parseFromField', () => {
    for (const name of ['Acme', 'Doe, "J" \\ x', 'Zoë <team>']) {
      expect(parseFromField(formatMailbox('a@acme.test', name))).toMatchObject({ ok: true, value: { displayName: name } });
    }
  });
});
