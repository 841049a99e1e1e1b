import { isIPv6 } from 'node:net';

/**
 * Where a connection comes from, for per-address bounds (the inbound listener's connection cap, the
 * submission listener's AUTH throttle): an IPv4 address (an IPv4-mapped IPv6 address
 * counts as its IPv4 one), or an IPv6 /64, the block one host or site usually holds, so that
 * its addresses do not each get a cap of their own.
 */
export function connectionSource(address: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (!isIPv6(address)) return address;
  const [head = '', tail] = address.split('%')[0]!.split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':').flatMap((g) => (g.includes('.') ? ['0', '0'] : [g])));
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const full = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return `${full
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}
