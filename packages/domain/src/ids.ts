import { pooledRandomBytes } from './random-pool';

/** Type prefixes of public identifiers (docs/api-decisions.md, "Conventions"). */
export const ID_PREFIX = {
  account: 'acc',
  apiKey: 'key',
  domain: 'dom',
  sender: 'snd',
  email: 'em',
  plan: 'plan',
  delivery: 'dlv',
  attempt: 'att',
  webhook: 'wh',
  webhookEvent: 'evt',
  webhookDelivery: 'whd',
  template: 'tpl',
  templateVersion: 'tplv',
  inboundRoute: 'rte',
  inboundEmail: 'inb',
  inboundAttachment: 'iat',
} as const;

export type IdKind = keyof typeof ID_PREFIX;

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `length` random base62 characters; rejection sampling keeps every character uniform. */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of pooledRandomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

/** 22 base62 characters carry about 131 bits: unguessable and never sequential. */
export function newId(kind: IdKind): string {
  return `${ID_PREFIX[kind]}_${randomBase62(22)}`;
}

const ID_SHAPE = Object.fromEntries(
  Object.entries(ID_PREFIX).map(([kind, prefix]) => [kind, new RegExp(`^${prefix}_[0-9A-Za-z]{22}$`)]),
) as Record<IdKind, RegExp>;

/** Whether `value` has the shape of an id of this kind; used to answer `*_not_found` without a query. */
export function isIdOf(kind: IdKind, value: string): boolean {
  return ID_SHAPE[kind].test(value);
}
