import { randomInt } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { getServers } from 'node:dns';
import { connect, isIPv6 } from 'node:net';
import * as packet from 'dns-packet';
import type { TlsaRecord } from '@mailer/domain';
import type { DnsResolverOptions } from './resolver';

/**
 * An answer of the configured resolver with its AD bit (RFC 4035 section 3.2.3): `secure` says
 * the resolver validated it with DNSSEC. Only worth anything when that resolver validates and
 * the path to it is trusted (DNSSEC_VALIDATING_RESOLVER).
 */
export type AuthenticatedAnswer<T> =
  | { kind: 'found'; secure: boolean; values: T[] }
  | { kind: 'missing'; secure: boolean }
  | { kind: 'temporary'; reason: string };

/** The lookups DANE needs (RFC 7672 section 2.2): node's resolver shows neither the AD bit nor TLSA records. */
export interface AuthenticatedLookups {
  /** The exchange host names of the MX records at `domain`. */
  mx(domain: string, signal?: AbortSignal): Promise<AuthenticatedAnswer<string>>;
  /** The TLSA records of port 25 at an MX host: `_25._tcp.<host>`. */
  tlsa(host: string, signal?: AbortSignal): Promise<AuthenticatedAnswer<TlsaRecord>>;
}

/** The DNS message size advertised over UDP (the DNS flag day 2020 value); a truncated answer is asked again over TCP. */
const UDP_PAYLOAD_SIZE = 1232;

/** Queries the first configured server (DNS_SERVERS, else the system's), asking for the AD bit, with dns-packet. */
export function createAuthenticatedLookups(options: DnsResolverOptions): AuthenticatedLookups {
  const tries = options.tries ?? 2;
  const server = () => parseServer(options.servers[0] ?? getServers()[0] ?? '127.0.0.1');

  async function ask<T>(name: string, type: 'MX' | 'TLSA', pick: (answer: packet.Answer) => T | undefined, signal?: AbortSignal): Promise<AuthenticatedAnswer<T>> {
    let reason = 'no answer';
    for (let attempt = 0; attempt < tries; attempt++) {
      if (signal?.aborted) return { kind: 'temporary', reason: 'deadline_exceeded' };
      const query: packet.Packet = {
        type: 'query',
        id: randomInt(0, 65_536),
        flags: packet.RECURSION_DESIRED | packet.AUTHENTIC_DATA,
        questions: [{ type, name }],
        additionals: [{ type: 'OPT', name: '.', udpPayloadSize: UDP_PAYLOAD_SIZE, flags: packet.DNSSEC_OK } as packet.Answer],
      };
      try {
        let response = await exchangeUdp(server(), query, options.timeoutMs, signal);
        if (response.flag_tc) response = await exchangeTcp(server(), query, options.timeoutMs, signal);
        const rcode = (response as { rcode?: string }).rcode;
        const secure = response.flag_ad;
        if (rcode === 'NXDOMAIN') return { kind: 'missing', secure };
        if (rcode !== 'NOERROR') {
          reason = rcode ?? 'unknown';
          continue;
        }
        const values = (response.answers ?? []).filter((a) => a.type === type).map(pick).filter((v): v is T => v !== undefined);
        return values.length > 0 ? { kind: 'found', secure, values } : { kind: 'missing', secure };
      } catch (error) {
        reason = (error as Error).message;
      }
    }
    return { kind: 'temporary', reason };
  }

  return {
    mx: (domain, signal) => ask(domain, 'MX', (a) => (a.type === 'MX' ? a.data.exchange : undefined), signal),
    tlsa: (host, signal) =>
      ask(`_25._tcp.${host}`, 'TLSA', (a) => (a.type === 'TLSA' ? { usage: a.data.usage, selector: a.data.selector, matchingType: a.data.matchingType, data: a.data.certificate } : undefined), signal),
  };
}

interface Server {
  host: string;
  port: number;
}

/** `host:port`, `[v6]:port`, or an address alone (port 53), as DNS_SERVERS and node's getServers() write them. */
function parseServer(entry: string): Server {
  const bracketed = /^\[(.+)\](?::(\d+))?$/.exec(entry);
  if (bracketed) return { host: bracketed[1]!, port: Number(bracketed[2] ?? 53) };
  if (isIPv6(entry)) return { host: entry, port: 53 };
  const [host, port] = entry.split(':');
  return { host: host!, port: Number(port ?? 53) };
}

function exchangeUdp(server: Server, query: packet.Packet, timeoutMs: number, signal?: AbortSignal): Promise<packet.DecodedPacket> {
  const socket = createSocket(isIPv6(server.host) ? 'udp6' : 'udp4');
  return bounded(timeoutMs, signal, () => socket.close(), (resolve, reject) => {
    socket.on('error', reject);
    socket.on('message', (message: Buffer) => {
      const response = packet.decode(message);
      if (response.id === query.id) resolve(response);
    });
    socket.send(packet.encode(query), server.port, server.host);
  });
}

function exchangeTcp(server: Server, query: packet.Packet, timeoutMs: number, signal?: AbortSignal): Promise<packet.DecodedPacket> {
  const socket = connect(server.port, server.host);
  return bounded(timeoutMs, signal, () => socket.destroy(), (resolve, reject) => {
    let buffered = Buffer.alloc(0);
    socket.on('error', reject);
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      if (buffered.length >= 2 && buffered.length >= 2 + buffered.readUInt16BE(0)) resolve(packet.streamDecode(buffered) as packet.DecodedPacket);
    });
    socket.write(packet.streamEncode(query));
  });
}

/** Runs one exchange until it settles, `timeoutMs` passes or `signal` aborts; `cleanup` runs in every case. */
function bounded<T>(
  timeoutMs: number,
  signal: AbortSignal | undefined,
  cleanup: () => void,
  run: (resolve: (value: T) => void, reject: (error: Error) => void) => void,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  return new Promise<T>((resolve, reject) => {
    timer = setTimeout(() => reject(new Error('timeout')), timeoutMs);
    onAbort = () => reject(new Error('deadline_exceeded'));
    signal?.addEventListener('abort', onAbort, { once: true });
    run(resolve, reject);
  }).finally(() => {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
    cleanup();
  });
}
