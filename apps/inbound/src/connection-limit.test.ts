import { connectionSource, createConnectionLimit } from './connection-limit';

describe('connectionSource', () => {
  it.each([
    ['192.0.2.7', '192.0.2.7'],
    ['::ffff:192.0.2.7', '192.0.2.7'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:db8:1:2::9', '2001:db8:1:2::/64'],
    ['2001:0DB8:0001:0002:ffff::1', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['64:ff9b::192.0.2.7', '64:ff9b:0:0::/64'],
  ])('%s counts as %s', (address, source) => {
    expect(connectionSource(address)).toBe(source);
  });
});

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
