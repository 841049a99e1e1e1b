import { boundDetails, ProblemList } from './error-details';

const jsonBytes = (text: string) => Buffer.byteLength(JSON.stringify(text)) - 2;

describe('boundDetails', () => {
  it('keeps short texts and cuts long ones at a character boundary, at most 256 bytes JSON-escaped', () => {
    expect(boundDetails([{ path: 'to[1]', message: 'not a valid email address' }])).toEqual([{ path: 'to[1]', message: 'not a valid email address' }]);
    for (const char of ['a', 'é', '€', '\u{1f389}', '\u0001', '"', '\ud800']) {
      const [cut] = boundDetails([{ path: char.repeat(1000), message: 'm' }]);
      expect(cut?.path.endsWith('…')).toBe(true);
      expect(jsonBytes(cut!.path)).toBeLessThanOrEqual(256);
      expect(cut!.path.slice(0, -1)).toBe(char.repeat((cut!.path.length - 1) / char.length));
    }
  });
});

describe('ProblemList', () => {
  it('lists 100 problems and counts the rest in one last entry', () => {
    const problems = new ProblemList();
    for (let i = 0; i < 100; i++) problems.add(`p${i}`, 'm');
    expect(problems.toDetails()).toHaveLength(100);
    problems.add('p100', 'm');
    expect(problems.toDetails()[100]).toEqual({ path: '(body)', message: '1 more problem is not listed' });
    problems.addUnlisted(1233);
    expect(problems.toDetails()[100]).toEqual({ path: '(body)', message: '1,234 more problems are not listed' });
  });
});
