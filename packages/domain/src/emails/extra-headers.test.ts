import { checkExtraHeaders, HEADER_VALUE_MAX_OCTETS, MAX_EXTRA_HEADERS, ONE_CLICK } from './extra-headers';

const problems = (input: Record<string, string>) => {
  const checked = checkExtraHeaders(input);
  return checked.ok ? [] : checked.problems;
};

describe('checkExtraHeaders', () => {
  it('accepts X- fields and the standard ones, writing standard names in their standard spelling', () => {
    expect(
      checkExtraHeaders({
        'X-Campaign': ' spring ',
        'list-unsubscribe': '<https://acme.test/u/1>, <mailto:u@acme.test>',
        'List-Unsubscribe-Post': ONE_CLICK,
        'List-Id': 'News <news.acme.test>',
        References: '<a@acme.test> <b@acme.test>',
        'In-Reply-To': '<b@acme.test>',
      }),
    ).toEqual({
      ok: true,
      value: [
        { name: 'X-Campaign', value: 'spring' },
        { name: 'List-Unsubscribe', value: '<https://acme.test/u/1>, <mailto:u@acme.test>' },
        { name: 'List-Unsubscribe-Post', value: ONE_CLICK },
        { name: 'List-Id', value: 'News <news.acme.test>' },
        { name: 'References', value: '<a@acme.test> <b@acme.test>' },
        { name: 'In-Reply-To', value: '<b@acme.test>' },
      ],
    });
  });

  it('refuses other names, malformed X- names and a second spelling of one field', () => {
    expect(problems({ From: 'a@b.test' })[0]).toMatchObject({ name: 'From' });
    expect(problems({ 'DKIM-Signature': 'x' })[0]).toMatchObject({ name: 'DKIM-Signature' });
    expect(problems({ 'X-': 'x' })[0]).toMatchObject({ name: 'X-' });
    expect(problems({ 'X-A B': 'x' })[0]).toMatchObject({ name: 'X-A B' });
    expect(problems({ [`X-${'a'.repeat(80)}`]: 'x' })).toHaveLength(1);
    expect(problems({ 'X-Tag': 'a', 'x-tag': 'b' })).toEqual([{ name: 'x-tag', message: expect.stringContaining('same header field') }]);
  });

  it('refuses CR, LF, NUL, other control characters, empty and over-long values', () => {
    expect(problems({ 'X-A': 'a\r\nBcc: x@y.test' })).toEqual([{ name: 'X-A', message: 'must not contain CR, LF or NUL' }]);
    expect(problems({ 'X-A': 'a\nb' })[0]!.message).toBe('must not contain CR, LF or NUL');
    expect(problems({ 'X-A': 'a\0b' })[0]!.message).toBe('must not contain CR, LF or NUL');
    expect(problems({ 'X-A': 'a\u0007b' })[0]!.message).toBe('must not contain control characters');
    expect(problems({ 'X-A': '  ' })[0]!.message).toBe('must not be empty or only white space');
    expect(problems({ 'X-A': 'é'.repeat(500) })[0]!.message).toContain(`${HEADER_VALUE_MAX_OCTETS} octets`);
    expect(problems({ 'X-A': 'a'.repeat(HEADER_VALUE_MAX_OCTETS) })).toEqual([]);
  });

  it('holds structured fields to printable ASCII whose unbroken runs fit a line', () => {
    expect(problems({ 'List-Id': 'Nouvelles é <n.acme.test>' })[0]!.message).toContain('printable ASCII');
    expect(problems({ 'List-Unsubscribe': `<https://acme.test/${'a'.repeat(970)}>` })[0]!.message).toContain('too long to fold');
    expect(problems({ 'List-Unsubscribe': `<https://acme.test/${'a'.repeat(900)}>` })).toEqual([]);
  });

  it('needs the one-click value and a List-Unsubscribe for List-Unsubscribe-Post (RFC 8058)', () => {
    expect(problems({ 'List-Unsubscribe': '<https://a.test/u>', 'List-Unsubscribe-Post': 'yes' })[0]!.message).toContain(ONE_CLICK);
    expect(problems({ 'List-Unsubscribe-Post': ONE_CLICK })[0]!.message).toContain('needs a List-Unsubscribe');
  });

  it(`allows at most ${MAX_EXTRA_HEADERS} fields`, () => {
    const many = Object.fromEntries(Array.from({ length: MAX_EXTRA_HEADERS + 1 }, (_, i) => [`X-H${i}`, 'v']));
    expect(problems(many)).toEqual([{ message: `at most ${MAX_EXTRA_HEADERS} header fields` }]);
  });
});
