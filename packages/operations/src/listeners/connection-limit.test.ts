import { createConnectionLimit } from './connection-limit';

describe('createConnectionLimit', () => {
  it('refuses a source past its cap until one of its connections closes, counting sources apart', () => {
    const limit = createConnectionLimit({ perAddress: 2, total: 100 });
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

  it('refuses any source once the listener holds its total, until a connection closes', () => {
    const limit = createConnectionLimit({ perAddress: 2, total: 3 });
    expect(['192.0.2.1', '192.0.2.2', '192.0.2.3', '192.0.2.4'].map((address, i) => limit.open(`s${i}`, address))).toEqual([true, true, true, false]);
    limit.close('s1');
    expect(limit.open('s5', '192.0.2.4')).toBe(true);
    expect(limit.open('s6', '192.0.2.5')).toBe(false);
  });
});
