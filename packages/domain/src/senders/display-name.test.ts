import { normalizeDisplayName } from './display-name';

const problemsOf = (input: string) => {
  const result = normalizeDisplayName(input);
  return result.ok ? [] : result.problems;
};

describe('normalizeDisplayName', () => {
  it('keeps an ordinary name and trims it like String.prototype.trim', () => {
    expect(normalizeDisplayName('  Acme Billing \t')).toEqual({ ok: true, value: 'Acme Billing' });
    // Ideographic space, no-break space, BOM and line separator are Unicode white space.
    expect(normalizeDisplayName('\u3000\u00a0\ufeffAcme\u2028\u3000')).toEqual({ ok: true, value: 'Acme' });
  });

  it('refuses empty and white-space-only names', () => {
    expect(problemsOf('')).toEqual(['must not be empty or only white space']);
    expect(problemsOf(' \u3000\n\t ')).toEqual(['must not be empty or only white space']);
  });

  it('refuses control characters left after trimming', () => {
    for (const cc of ['\u0007', '\u0085', '\u0000', '\r', '\n', '\t', '\u007f', '\u009f']) {
      expect(problemsOf(`Acme${cc}Billing`)).toEqual(['must not contain control characters']);
    }
    // U+0085 is a control character, not white space: trimming leaves it in place.
    expect(problemsOf('Acme\u0085')).toEqual(['must not contain control characters']);
  });

  it('refuses unpaired surrogates', () => {
    expect(problemsOf('Acme \ud800')).toEqual(['must be well-formed Unicode (no unpaired surrogates)']);
  });

  it('counts Unicode scalar values, not UTF-16 units: 128 accepted, 129 refused', () => {
    expect(normalizeDisplayName('a'.repeat(128)).ok).toBe(true);
    expect(problemsOf('a'.repeat(129))).toEqual(['must be at most 128 characters (has 129)']);
    // 64 emoji are 128 UTF-16 units and 256 UTF-8 bytes but only 64 scalars.
    expect(normalizeDisplayName('😀'.repeat(64)).ok).toBe(true);
  });

  it('counts each combining mark as a scalar of its own', () => {
    // "é" written as e + U+0301: 2 scalars, 3 bytes each pair.
    expect(normalizeDisplayName('e\u0301'.repeat(64)).ok).toBe(true);
    expect(problemsOf(`${'e\u0301'.repeat(64)}e`)).toEqual(['must be at most 128 characters (has 129)']);
    // Not NFC-normalized: the decomposed form is kept as given.
    expect(normalizeDisplayName('Rene\u0301')).toEqual({ ok: true, value: 'Rene\u0301' });
  });

  it('holds 4-byte characters to 256 UTF-8 bytes: 64 accepted, 65 refused', () => {
    expect(normalizeDisplayName('𝄞'.repeat(64)).ok).toBe(true);
    expect(problemsOf('𝄞'.repeat(65))).toEqual(['must be at most 256 bytes in UTF-8 (has 260)']);
  });

  it('refuses a name within 128 scalars but over 256 bytes', () => {
    // 100 three-byte characters: 100 scalars, 300 bytes.
    expect(problemsOf('€'.repeat(100))).toEqual(['must be at most 256 bytes in UTF-8 (has 300)']);
    // 85 three-byte + 2 ASCII = 257 bytes in 87 scalars.
    expect(problemsOf(`${'€'.repeat(85)}ab`)).toEqual(['must be at most 256 bytes in UTF-8 (has 257)']);
    expect(normalizeDisplayName(`${'€'.repeat(85)}a`).ok).toBe(true);
  });

  it('measures after trimming', () => {
    expect(normalizeDisplayName(`\u3000${'a'.repeat(128)}\u3000`)).toEqual({ ok: true, value: 'a'.repeat(128) });
  });

  it('reports every problem found', () => {
    expect(problemsOf(`\u0007${'😀'.repeat(129)}`)).toEqual([
      'must not contain control characters',
      'must be at most 128 characters (has 130)',
      'must be at most 256 bytes in UTF-8 (has 517)',
    ]);
  });
});
