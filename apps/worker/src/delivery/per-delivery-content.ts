import { daysSinceEpoch, signLinkToken, unsubscribeAddress, type EmailType } from '@mailer/domain';

export interface HeaderField {
  name: string;
  value: string;
}

/** What the unsubscribe links of a delivery are made of: the API's origin, the return-path label, the key, the day. */
export interface UnsubscribeLinkOptions {
  /** PUBLIC_URL, without a trailing slash. */
  publicUrl: string;
  /** RETURN_PATH_LABEL: the mailto: address is at the domain's return-path host. */
  returnPathLabel: string;
  /** ENCRYPTION_KEY, which link tokens are MACed under (signLinkToken). */
  encryptionKey: Buffer;
  now: Date;
}

/** The header fields of one-click unsubscribe, whichever of them a message gives. */
const UNSUBSCRIBE_FIELDS: ReadonlySet<string> = new Set(['list-unsubscribe', 'list-unsubscribe-post']);

/**
 * Whether each delivery of the message gets a copy of its own (docs/api-decisions.md,
 * "Unsubscribe"): a broadcast message, or a transactional one sent with `unsubscribe: true`,
 * carries List-Unsubscribe links that name one delivery. Such a message's deliveries go in
 * one SMTP transaction each.
 */
export const carriesUnsubscribe = (email: { type: EmailType; unsubscribe: boolean }): boolean => email.type === 'broadcast' || email.unsubscribe;

/**
 * The fields each delivery's copy adds, by delivery id: `List-Unsubscribe` with the https link
 * and the mailto: address of its token, and `List-Unsubscribe-Post: List-Unsubscribe=One-Click`
 * (RFC 8058), both signed by DKIM (DKIM_SIGNED_HEADERS). Undefined when every delivery gets the
 * same message: the message carries no unsubscribe, or the customer's headers give a
 * List-Unsubscribe (or -Post) of their own, which is kept as given and ours not added.
 */
export function perDeliveryHeaders(
  email: { type: EmailType; unsubscribe: boolean },
  customerHeaders: readonly HeaderField[],
  domain: string,
  deliveryIds: readonly string[],
  options: UnsubscribeLinkOptions,
): Map<string, HeaderField[]> | undefined {
  if (!carriesUnsubscribe(email) || customerHeaders.some((h) => UNSUBSCRIBE_FIELDS.has(h.name.toLowerCase()))) return undefined;
  const issuedDay = daysSinceEpoch(options.now);
  return new Map(
    deliveryIds.map((deliveryId) => {
      const token = signLinkToken({ deliveryId, use: 'unsubscribe', link: 0, issuedDay }, options.encryptionKey);
      return [
        deliveryId,
        [
          { name: 'List-Unsubscribe', value: `<${options.publicUrl}/u/${token}>,\r\n <mailto:${unsubscribeAddress(token, domain, options.returnPathLabel)}>` },
          { name: 'List-Unsubscribe-Post', value: 'List-Unsubscribe=One-Click' },
        ],
      ];
    }),
  );
}

/**
 * The composed (unsigned) message with `fields` added at the top of its header block, before
 * DKIM signs it. A value may hold folds (CRLF and a space), written as given.
 */
export function perDeliveryContent(composed: Buffer, fields: readonly HeaderField[]): Buffer {
  if (fields.length === 0) return composed;
  return Buffer.concat([Buffer.from(fields.map((f) => `${f.name}: ${f.value}\r\n`).join(''), 'utf8'), composed]);
}
