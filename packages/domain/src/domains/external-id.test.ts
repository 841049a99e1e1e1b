import { normalizeExternalId } from './external-id';

describe('normalizeExternalId', () => {
  it('trims Unicode white space and NFC-normalizes', () => {
    expect(normalizeExternalId('\u00a0 cust-1\u2003\n')).toEqual({ ok: true, value: 'cust-1' });
    expect(normalizeExternalId('Cafe\u0301')).toEqual({ ok: true, value: 'Caf\u00e9' });
  });

  it('counts Unicode scalar values, not UTF-16 units', () => {
    expect(normalizeExternalId('😀'.repeat(255))).toMatchObject({ ok: true });
    expect(normalizeExternalId('a'.repeat(256))).toMatchObject({ ok: false, message: expect.stringMatching(/255/) });
  });

  it('refuses empty values, control characters and lone surrogates', () => {
    expect(normalizeExternalId('   ')).toMatchObject({ ok: false });
    expect(normalizeExternalId('a\u0000b')).toMatchObject({ ok: false, message: expect.stringMatching(/control/) });
    expect(normalizeExternalId('a\u007fb')).toMatchObject({ ok: false, message: expect.stringMatching(/control/) });
    expect(normalizeExternalId('a\ud800b')).toMatchObject({ ok: false, message: expect.stringMatching(/Unicode/) });
  });
});
