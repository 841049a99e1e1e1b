import { bodyParts, checkSubject, contentProblems } from './content';
import { HTML_MAX_BYTES, PLAIN_MAX_BYTES } from './email-limits';

describe('checkSubject', () => {
  it('trims and accepts 1..998 characters', () => {
    expect(checkSubject('  Your receipt ')).toEqual({ ok: true, value: 'Your receipt' });
    expect(checkSubject('é'.repeat(998))).toMatchObject({ ok: true });
    expect(checkSubject('😀'.repeat(998))).toMatchObject({ ok: true });
  });

  it('refuses empty, too long, control characters and line breaks', () => {
    expect(checkSubject('   ')).toEqual({ ok: false, problems: ['must not be empty or only white space'] });
    expect(checkSubject('x'.repeat(999))).toEqual({ ok: false, problems: ['must be at most 998 characters (has 999)'] });
    expect(checkSubject('a\tb')).toEqual({ ok: false, problems: ['must not contain control characters'] });
    for (const s of ['a\r\nBcc: x@y.test', 'a\nb', 'line\n', 'a\0b']) {
      expect(checkSubject(s)).toEqual({ ok: false, problems: ['must not contain CR, LF or NUL (header injection)'] });
    }
  });
});

describe('contentProblems', () => {
  it('needs one part with non-whitespace text', () => {
    expect(contentProblems({})).toEqual([{ message: 'needs plain or html with non-whitespace text' }]);
    expect(contentProblems({ plain: ' \n', html: '' })).toHaveLength(1);
    expect(contentProblems({ html: '<p>x</p>' })).toEqual([]);
  });

  it('measures limits in UTF-8 bytes', () => {
    expect(contentProblems({ plain: 'a'.repeat(PLAIN_MAX_BYTES) })).toEqual([]);
    expect(contentProblems({ plain: 'é'.repeat(PLAIN_MAX_BYTES / 2 + 1) })).toEqual([
      { part: 'plain', message: `must be at most ${PLAIN_MAX_BYTES} bytes in UTF-8 (has ${PLAIN_MAX_BYTES + 2})` },
    ]);
    expect(contentProblems({ plain: 'ok', html: 'x'.repeat(HTML_MAX_BYTES + 1) })).toEqual([
      { part: 'html', message: `must be at most ${HTML_MAX_BYTES} bytes in UTF-8 (has ${HTML_MAX_BYTES + 1})` },
    ]);
  });

  it('refuses NUL characters', () => {
    expect(contentProblems({ plain: 'a\0b' })).toEqual([{ part: 'plain', message: 'must not contain NUL characters' }]);
  });
});

describe('bodyParts', () => {
  it('leaves out a part without text', () => {
    expect(bodyParts({ plain: '  ', html: '<b>x</b>' })).toEqual({ text: null, html: '<b>x</b>' });
  });
});
