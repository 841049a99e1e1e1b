import { isDeliverableAddress, planMxHosts } from './mx-order';

describe('planMxHosts', () => {
  it('orders by preference and shuffles equal preferences', () => {
    const records = [
      { exchange: 'backup.example.test', priority: 20 },
      { exchange: 'a.example.test', priority: 10 },
      { exchange: 'b.example.test', priority: 10 },
    ];
    const firsts = new Set<string>();
    for (let i = 0; i < 50; i++) {
      const plan = planMxHosts(records);
      if (plan.kind !== 'hosts') throw new Error('expected hosts');
      expect(plan.hosts).toHaveLength(3);
      expect(plan.hosts[2]).toBe('backup.example.test');
      firsts.add(plan.hosts[0]!);
    }
    expect(firsts).toEqual(new Set(['a.example.test', 'b.example.test']));
  });

  it('recognizes a null MX (RFC 7505), as node reports it and as written', () => {
    expect(planMxHosts([{ exchange: '', priority: 0 }])).toEqual({ kind: 'null_mx' });
    expect(planMxHosts([{ exchange: '.', priority: 0 }])).toEqual({ kind: 'null_mx' });
  });

  it('normalizes host names and drops duplicates', () => {
    expect(planMxHosts([{ exchange: 'MX.Example.test.', priority: 5 }, { exchange: 'mx.example.test', priority: 10 }])).toEqual({
      kind: 'hosts',
      hosts: ['mx.example.test'],
    });
  });
});

describe('isDeliverableAddress', () => {
  it.each(['8.8.8.8', '2a00:1450:4001::1b', '::ffff:8.8.8.8'])('accepts the public unicast address %s', (address) => {
    expect(isDeliverableAddress(address, false)).toBe(true);
  });

  it.each([
    '127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '224.0.0.1', '0.0.0.0',
    '255.255.255.255', '192.0.2.1', '::1', '::', 'fe80::1', 'fc00::1', 'ff02::1', '::ffff:127.0.0.1', '2002:7f00:1::1', '2001:db8::1', 'not-an-ip',
  ])('refuses %s', (address) => {
    expect(isDeliverableAddress(address, false)).toBe(false);
  });

  it('allows private addresses when configured, never garbage', () => {
    expect(isDeliverableAddress('127.0.0.2', true)).toBe(true);
    expect(isDeliverableAddress('mx.example.test', true)).toBe(false);
  });
});
