import {
  base64DecodedLength,
  contentIdProblems,
  contentTypeForFilename,
  decodeStrictBase64,
  filenameProblems,
  normalizeContentType,
} from './attachments';

describe('decodeStrictBase64', () => {
  it('decodes canonical base64', () => {
    expect(decodeStrictBase64('aGVsbG8=')?.toString()).toBe('hello');
    expect(decodeStrictBase64('')?.length).toBe(0);
    expect(decodeStrictBase64('/+8=')).toEqual(Buffer.from([0xff, 0xef]));
  });

  it('refuses white space, line breaks, url-safe letters, missing or non-canonical padding', () => {
    for (const text of ['aGVs bG8=', 'aGVsbG8=\n', 'aGVs\r\nbG8=', 'aGVsbG8', 'aGVsbG9=', '-_8=', 'aGVsbG8=aGVsbG8=', '====', 'a===']) {
      expect(decodeStrictBase64(text)).toBeUndefined();
    }
  });

  it('knows the decoded length without decoding', () => {
    for (const text of ['', 'YQ==', 'YWI=', 'YWJj', 'aGVsbG8gd29ybGQ=']) {
      expect(base64DecodedLength(text)).toBe(Buffer.from(text, 'base64').length);
    }
  });
});

describe('filenameProblems', () => {
  it('accepts ordinary names, Unicode included', () => {
    expect(filenameProblems('receipt 2026.pdf')).toEqual([]);
    expect(filenameProblems('façade – plan.docx')).toEqual([]);
    expect(filenameProblems('😀'.repeat(255))).toEqual([]);
  });

  it('refuses separators, control characters, injection, blank and over-long names', () => {
    expect(filenameProblems('a/b.txt')).toEqual(['must not contain / or \\']);
    expect(filenameProblems('a\\b.txt')).toEqual(['must not contain / or \\']);
    expect(filenameProblems('a\r\nContent-Type: text/html')).toEqual(['must not contain CR, LF or NUL (header injection)']);
    expect(filenameProblems('a\u0007.txt')).toEqual(['must not contain control characters']);
    expect(filenameProblems(' ')).toEqual(['must not be empty or only white space']);
    expect(filenameProblems('x'.repeat(256))).toEqual(['must be at most 255 characters (has 256)']);
    expect(filenameProblems('..')).toEqual(['must be a file name, not . or ..']);
  });
});

describe('content types', () => {
  it('defaults from the extension, case-insensitively', () => {
    expect(contentTypeForFilename('Receipt.PDF')).toBe('application/pdf');
    expect(contentTypeForFilename('logo.png')).toBe('image/png');
    expect(contentTypeForFilename('data.unknownext')).toBe('application/octet-stream');
    expect(contentTypeForFilename('README')).toBe('application/octet-stream');
  });

  it('validates a given type as type/subtype', () => {
    expect(normalizeContentType('Application/PDF')).toBe('application/pdf');
    expect(normalizeContentType('application/vnd.ms-excel')).toBe('application/vnd.ms-excel');
    for (const bad of ['pdf', 'text/plain; charset=utf-8', 'text/', '/x', 'text/pl ain', 'multipart/mixed', 'a/b\r\nX: y']) {
      expect(normalizeContentType(bad)).toBeUndefined();
    }
  });
});

describe('contentIdProblems', () => {
  it('accepts message-id characters and refuses the rest', () => {
    expect(contentIdProblems('logo')).toEqual([]);
    expect(contentIdProblems('logo.123@acme.test')).toEqual([]);
    expect(contentIdProblems('<logo>')).toHaveLength(1);
    expect(contentIdProblems('a b')).toHaveLength(1);
    expect(contentIdProblems('')).toHaveLength(1);
    expect(contentIdProblems('a\r\nb')).toEqual(['must not contain CR, LF or NUL (header injection)']);
  });
});
