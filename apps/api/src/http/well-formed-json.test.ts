import { illFormedStrings } from './well-formed-json';

const LONE = '\udc00';

describe('illFormedStrings', () => {
  it('finds unpaired surrogates in values and member names, in the body’s order, at their paths', () => {
    const body = JSON.parse(`{"a":["ok","x\\ud800"],"b\\udfff":1,"c":{"d":"\\ud83c\\udf89","e":"${'\\udc00'}"}}`);
    expect(illFormedStrings(body).toDetails()).toEqual([
      { path: 'a[1]', message: 'must be well-formed Unicode (no unpaired surrogates)' },
      { path: 'b\ufffd', message: 'member name must be well-formed Unicode (no unpaired surrogates)' },
      { path: 'c.e', message: 'must be well-formed Unicode (no unpaired surrogates)' },
    ]);
    expect(illFormedStrings(LONE).toDetails()).toEqual([{ path: '(body)', message: expect.any(String) }]);
    expect(illFormedStrings({ a: ['\ud83c\udf89'], b: 1, c: null }).isEmpty).toBe(true);
  });

  it('finds NUL in values and member names (PostgreSQL text cannot hold one)', () => {
    expect(illFormedStrings({ url: 'a\u0000b', tags: { ['k\u0000']: 'v' }, ok: 'a\\u0000' }).toDetails()).toEqual([
      { path: 'url', message: 'must not contain NUL (U+0000)' },
      { path: 'tags.k\ufffd', message: 'member name must not contain NUL (U+0000)' },
    ]);
    expect(illFormedStrings({ q: ['a', 'b\u0000'] }).toDetails()).toEqual([{ path: 'q[1]', message: 'must not contain NUL (U+0000)' }]);
  });

  it('walks a body nested deeper than the call stack, and lists 100 problems then counts the rest', () => {
    const deep = JSON.parse(`${'['.repeat(200_000)}"${'\\ud800'}"${']'.repeat(200_000)}`);
    const details = illFormedStrings(deep).toDetails();
    expect(details).toHaveLength(1);
    expect(details[0]?.path.length).toBeLessThan(1100);
    expect(illFormedStrings(Array.from({ length: 250 }, () => LONE)).toDetails()[100]).toEqual({
      path: '(body)',
      message: '150 more problems are not listed',
    });
  });
});
