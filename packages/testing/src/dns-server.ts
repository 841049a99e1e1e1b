import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import { createServer, type Server } from 'node:net';
import { isIPv4, isIPv6 } from 'node:net';

/**
 * A real DNS server on loopback (UDP and TCP, one port) whose zone a test controls:
 * records, CNAMEs, NXDOMAIN, SERVFAIL, REFUSED, and silence, and the AD bit of a validating
 * resolver on the names a test marks secure. It speaks just enough of RFC 1035 for node's
 * resolver and dns-packet; it is a test peer, not a resolver.
 */
export type DnsRecord =
  | { type: 'A'; address: string }
  | { type: 'AAAA'; address: string }
  | { type: 'MX'; exchange: string; priority: number }
  | { type: 'TXT'; data: string }
  | { type: 'CNAME'; target: string }
  /** At a reverse name such as `2.0.0.127.in-addr.arpa`. */
  | { type: 'PTR'; target: string }
  | { type: 'TLSA'; usage: number; selector: number; matchingType: number; data: Buffer };

export type RecordType = DnsRecord['type'];
export type DnsFailure = 'servfail' | 'refused' | 'timeout';

const TYPE_CODE: Record<RecordType, number> = { A: 1, CNAME: 5, PTR: 12, MX: 15, TXT: 16, AAAA: 28, TLSA: 52 };
const CODE_TYPE = Object.fromEntries(Object.entries(TYPE_CODE).map(([k, v]) => [v, k])) as Record<number, RecordType>;
const RCODE = { noerror: 0, servfail: 2, nxdomain: 3, refused: 5 } as const;

export interface TestDnsServer {
  /** `<host>:<port>`, the form DNS_SERVERS takes. */
  address: string;
  port: number;
  /** Replaces the records of one type at a name. */
  set(name: string, records: DnsRecord[]): void;
  /** Makes queries for `name` (of `type`, or of any type) fail this way. */
  fail(name: string, failure: DnsFailure, type?: RecordType): void;
  /** Answers for `name` carry the AD bit (as a validating resolver's answers from a signed zone do) while `secure`. */
  secure(name: string, secure: boolean): void;
  /** Forgets everything at `name`. */
  remove(name: string): void;
  reset(): void;
  /** How many queries arrived, for asserting that a route made none. */
  queryCount(): number;
  close(): Promise<void>;
}

const normalize = (name: string) => name.toLowerCase().replace(/\.$/, '');

function encodeName(name: string): Buffer {
  const labels = normalize(name).split('.').filter(Boolean);
  return Buffer.concat([...labels.map((l) => Buffer.concat([Buffer.from([Buffer.byteLength(l)]), Buffer.from(l)])), Buffer.from([0])]);
}

function readName(msg: Buffer, offset: number): { name: string; end: number } {
  const labels: string[] = [];
  let pos = offset;
  for (;;) {
    const len = msg[pos]!;
    if (len === 0) return { name: labels.join('.'), end: pos + 1 };
    labels.push(msg.subarray(pos + 1, pos + 1 + len).toString());
    pos += 1 + len;
  }
}

function encodeData(record: DnsRecord): Buffer {
  switch (record.type) {
    case 'A':
      return Buffer.from(record.address.split('.').map(Number));
    case 'AAAA': {
      const [head = '', tail = ''] = record.address.split('::');
      const h = head ? head.split(':') : [];
      const t = tail ? tail.split(':') : [];
      const groups = record.address.includes('::') ? [...h, ...Array(8 - h.length - t.length).fill('0'), ...t] : h;
      const out = Buffer.alloc(16);
      groups.forEach((g, i) => out.writeUInt16BE(parseInt(g, 16), i * 2));
      return out;
    }
    case 'MX': {
      const pref = Buffer.alloc(2);
      pref.writeUInt16BE(record.priority);
      return Buffer.concat([pref, encodeName(record.exchange)]);
    }
    case 'TXT': {
      const raw = Buffer.from(record.data);
      const chunks: Buffer[] = [];
      for (let i = 0; i < raw.length || i === 0; i += 255) {
        const part = raw.subarray(i, i + 255);
        chunks.push(Buffer.from([part.length]), part);
      }
      return Buffer.concat(chunks);
    }
    case 'CNAME':
    case 'PTR':
      return encodeName(record.target);
    case 'TLSA':
      return Buffer.concat([Buffer.from([record.usage, record.selector, record.matchingType]), record.data]);
  }
}

function encodeAnswer(name: string, record: DnsRecord): Buffer {
  const data = encodeData(record);
  const fixed = Buffer.alloc(10);
  fixed.writeUInt16BE(TYPE_CODE[record.type], 0);
  fixed.writeUInt16BE(1, 2);
  fixed.writeUInt32BE(60, 4);
  fixed.writeUInt16BE(data.length, 8);
  return Buffer.concat([encodeName(name), fixed, data]);
}

/** `host`: the IPv4 address it listens on (loopback unless a test's peers are elsewhere, such as containers). */
export async function startTestDnsServer(options: { host?: string } = {}): Promise<TestDnsServer> {
  const host = options.host ?? '127.0.0.1';
  const zone = new Map<string, Map<RecordType, DnsRecord[]>>();
  const failures = new Map<string, DnsFailure>();
  const secureNames = new Set<string>();
  let queries = 0;

  function answer(query: Buffer): Buffer | undefined {
    queries++;
    const id = query.readUInt16BE(0);
    const { name: qname, end } = readName(query, 12);
    const qtypeCode = query.readUInt16BE(end);
    const question = query.subarray(12, end + 4);
    const qtype = CODE_TYPE[qtypeCode];
    const name = normalize(qname);
    const failure = failures.get(`${name}|${qtype}`) ?? failures.get(`${name}|*`);
    if (failure === 'timeout') return undefined;

    let rcode: number = RCODE.noerror;
    const answers: Buffer[] = [];
    if (failure) rcode = RCODE[failure];
    else if (!zone.has(name)) rcode = RCODE.nxdomain;
    else {
      // Follow CNAMEs inside the zone, as a recursive resolver would, to a bounded depth.
      let current = name;
      for (let depth = 0; depth < 10; depth++) {
        const records = zone.get(current);
        if (!records) break;
        const direct = qtype ? records.get(qtype) : undefined;
        if (direct) {
          answers.push(...direct.map((r) => encodeAnswer(current, r)));
          break;
        }
        const cname = records.get('CNAME')?.[0];
        if (!cname || cname.type !== 'CNAME') break;
        answers.push(encodeAnswer(current, cname));
        current = normalize(cname.target);
      }
    }
    const header = Buffer.alloc(12);
    header.writeUInt16BE(id, 0);
    const authenticated = secureNames.has(name) ? 0x0020 : 0;
    header.writeUInt16BE(0x8180 | (query.readUInt16BE(2) & 0x0100) | authenticated | rcode, 2); // QR, RD copied, RA, AD
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(answers.length, 6);
    return Buffer.concat([header, question, ...answers]);
  }

  const serveUdp = (udp: Socket) =>
    udp.on('message', (msg: Buffer, rinfo: RemoteInfo) => {
      try {
        const reply = answer(msg);
        if (reply) udp.send(reply, rinfo.port, rinfo.address);
      } catch {
        // A malformed query gets no answer.
      }
    });

  const tcp: Server = createServer((socket) => {
    let buffered = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      buffered = Buffer.concat([buffered, chunk]);
      while (buffered.length >= 2 && buffered.length >= 2 + buffered.readUInt16BE(0)) {
        const msg = buffered.subarray(2, 2 + buffered.readUInt16BE(0));
        buffered = buffered.subarray(2 + msg.length);
        const reply = answer(msg);
        if (!reply) continue;
        const len = Buffer.alloc(2);
        len.writeUInt16BE(reply.length);
        socket.write(Buffer.concat([len, reply]));
      }
    });
    socket.on('error', () => undefined);
  });

  // UDP and TCP share one port: the UDP port the kernel picks may be taken for TCP, so try again.
  let udp: Socket | undefined;
  let port = 0;
  for (let attempt = 0; !udp; attempt++) {
    const candidate = serveUdp(createSocket('udp4'));
    await new Promise<void>((resolve) => candidate.bind(0, host, resolve));
    port = candidate.address().port;
    const listening = await new Promise<boolean>((resolve, reject) => {
      const onError = (error: NodeJS.ErrnoException) => (error.code === 'EADDRINUSE' && attempt < 20 ? resolve(false) : reject(error));
      tcp.once('error', onError);
      tcp.listen(port, host, () => {
        tcp.off('error', onError);
        resolve(true);
      });
    });
    if (listening) udp = candidate;
    else candidate.close();
  }
  const udpSocket = udp;

  return {
    address: `${host}:${port}`,
    port,
    set(name, records) {
      for (const r of records) {
        if ((r.type === 'A' && !isIPv4(r.address)) || (r.type === 'AAAA' && !isIPv6(r.address))) throw new Error(`bad address ${r.address}`);
      }
      const key = normalize(name);
      const byType = zone.get(key) ?? new Map<RecordType, DnsRecord[]>();
      const types = new Set(records.map((r) => r.type));
      for (const type of types) byType.set(type, records.filter((r) => r.type === type));
      zone.set(key, byType);
    },
    fail(name, failure, type) {
      failures.set(`${normalize(name)}|${type ?? '*'}`, failure);
    },
    secure(name, secure) {
      if (secure) secureNames.add(normalize(name));
      else secureNames.delete(normalize(name));
    },
    remove(name) {
      const key = normalize(name);
      zone.delete(key);
      secureNames.delete(key);
      for (const k of [...failures.keys()]) if (k.startsWith(`${key}|`)) failures.delete(k);
    },
    reset() {
      zone.clear();
      failures.clear();
      secureNames.clear();
    },
    queryCount: () => queries,
    close: () =>
      new Promise<void>((resolve) => {
        udpSocket.close();
        tcp.close(() => resolve());
      }),
  };
}
