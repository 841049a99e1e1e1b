import { parseTagList, unquoteTxt } from './txt-record';

describe('TXT values', () => {
  it('joins quoted strings pasted with their zone-file quotes', () => {
    expect(unquoteTxt('"v=DKIM1; k=rsa; " "p=abc"')).toBe('v=DKIM1; k=rsa; p=abc');
    expect(unquoteTxt('"a \\"quoted\\" word"')).toBe('a "quoted" word');
    expect(unquoteTxt('  plain value ')).toBe('plain value');
  });

  it('parses tag lists and refuses malformed or repeated tags', () => {
    expect(parseTagList(' v = DKIM1 ;K=rsa; p=ab cd ;')).toEqual([['v', 'DKIM1'], ['k', 'rsa'], ['p', 'ab cd']]);
    expect(parseTagList('v=DKIM1; nonsense; p=x')).toBeUndefined();
    expect(parseTagList('p=a; p=b')).toBeUndefined();
  });
});
