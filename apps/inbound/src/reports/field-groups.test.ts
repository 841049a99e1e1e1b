import { fieldGroups } from './field-groups';

const groups = (text: string, limits = { groups: 10, bytes: 1024 }) => fieldGroups(Buffer.from(text), limits).map((g) => Object.fromEntries(g));

describe('fieldGroups', () => {
  it('reads groups separated by blank (or white-space-only) lines, unfolding folded fields, the first of a repeated field kept', () => {
    expect(groups('Reporting-MTA: dns; a\r\n\r\nAction: failed\r\nStatus: 5.1.1\r\nDiagnostic-Code: smtp; 550\r\n\t user\r\n   unknown\r\n \t\r\nACTION: delayed\nAction: failed\n')).toEqual([
      { 'reporting-mta': 'dns; a' },
      { action: 'failed', status: '5.1.1', 'diagnostic-code': 'smtp; 550 user unknown' },
      { action: 'delayed' },
    ]);
  });

  it('skips lines that are no field and a fold with no field before it', () => {
    expect(groups(' orphan fold\r\nno colon here\r\n: no name\r\nStatus: 5.0.0\r\n')).toEqual([{ status: '5.0.0' }]);
  });

  it('reads no more groups than asked, and drops a group the byte bound cuts', () => {
    expect(groups('A: 1\r\n\r\nB: 2\r\n\r\nC: 3\r\n', { groups: 2, bytes: 1024 })).toEqual([{ a: '1' }, { b: '2' }]);
    expect(groups('A: 1\r\n\r\nB: 2\r\nC: 3\r\n', { groups: 10, bytes: 14 })).toEqual([{ a: '1' }]);
    expect(groups('A: 1\r\n\r\nB: 2\r\n', { groups: 10, bytes: 14 })).toEqual([{ a: '1' }, { b: '2' }]);
  });
});
