import { createConnectionLimit } from './connection-limit';

describe('createConnectionLimit', () => {
  it('refuses a source past its cap until one of its connections closes, counting sources apart', () => {
    const limit = createConnectionLimit(2);
    expect(['a', 'b', 'c'].map((id) => limit.open(id, '192.0.2.1'))).toEqual([true, true, false]);
    expect(limit.open('d', '192.0.2.2')).toBe(true);
    expect(limit.open('e', '2001:db8::1')).toBe(true);
    expect(limit.open('f', '2001:db8::2')).toBe(true);
    expect(limit.open('g', '2001:db8:0:0:ffff::3')).toBe(false);
    limit.close('c');
    expect(limit.open('h', '192.0.2.1')).toBe(false);
    limit.close('a');
    limit.close('a');
    expect(limit.open('i', '192.0.2.1')).toBe(true);
    expect(limit.open('j', '192.0.2.1')).toBe(false);
  });
});
