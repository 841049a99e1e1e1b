import { parseTagFilter, tagProblems } from './tags';

describe('tags', () => {
  it('accepts keys of 1..64 [A-Za-z0-9_-] and values of at most 256 characters', () => {
    expect(tagProblems('campaign_2026-spring', 'a'.repeat(256))).toEqual([]);
    expect(tagProblems('k'.repeat(64), '😀'.repeat(256))).toEqual([]);
    expect(tagProblems('', 'v')).toEqual([{ on: 'key', message: expect.any(String) }]);
    expect(tagProblems('k'.repeat(65), 'v')).toEqual([{ on: 'key', message: expect.any(String) }]);
    expect(tagProblems('a.b', 'v')).toEqual([{ on: 'key', message: expect.any(String) }]);
    expect(tagProblems('k', 'a'.repeat(257))).toEqual([{ on: 'value', message: 'must be at most 256 characters' }]);
    expect(tagProblems('k', 'a\nb')).toEqual([{ on: 'value', message: 'must not contain control characters' }]);
  });

  it('parses the key:value filter at the first colon', () => {
    expect(parseTagFilter('campaign:spring')).toEqual({ key: 'campaign', value: 'spring' });
    expect(parseTagFilter('url:https://x')).toEqual({ key: 'url', value: 'https://x' });
    expect(parseTagFilter('k:')).toEqual({ key: 'k', value: '' });
    expect(parseTagFilter('nocolon')).toBeNull();
    expect(parseTagFilter('bad key:v')).toBeNull();
  });
});
