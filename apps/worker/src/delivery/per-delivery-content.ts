import { daysSinceEpoch, signLinkToken, unsubscribeAddress, type EmailType } from '@mailer/domain';
import { trackHtml } from '@mailer/message';

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

/**
 * One delivery's copy of a message: the header fields added on top, and, for a tracked copy,
 * its own HTML part (perDeliveryHtml).
 */
export interface DeliveryCopy {
  fields: HeaderField[];
  html?: string;
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

/** Opens and clicks of a message as its claim reads them: its own `track`, else its domain's. */
export interface TrackedEmail {
  test: boolean;
  track: { opens: boolean; clicks: boolean };
}

/**
 * Whether the message's to/cc deliveries get copies of their own for opens or clicks
 * (docs/api-decisions.md, "Opens and clicks"); a test message is simulated and tracks nothing.
 */
export const carriesTracking = (email: TrackedEmail): boolean => !email.test && (email.track.opens || email.track.clicks);

/** Whether each delivery of the message goes in an SMTP transaction of its own: its copy names it. */
export const needsOwnCopies = (email: TrackedEmail & { type: EmailType; unsubscribe: boolean }): boolean => carriesUnsubscribe(email) || carriesTracking(email);

/**
 * The HTML part of each tracked delivery's copy, by delivery id: the pixel
 * `https://<tracking host>/o/<token>` at its end while opens are tracked, and each link of
 * trackedLinks as `https://<tracking host>/c/<token>` (the token naming the delivery and the
 * link's index) while clicks are. BCC deliveries get the message as it is: nothing derived from
 * them is tracked. Undefined when no delivery gets a tracked copy (nothing tracked, no HTML part).
 */
export function perDeliveryHtml(
  email: TrackedEmail,
  html: string | null,
  trackingHost: string,
  deliveries: readonly { id: string; kind: 'to' | 'cc' | 'bcc' }[],
  options: Pick<UnsubscribeLinkOptions, 'encryptionKey' | 'now'>,
): Map<string, string> | undefined {
  if (!carriesTracking(email) || html === null) return undefined;
  const tracked = deliveries.filter((d) => d.kind !== 'bcc');
  if (tracked.length === 0) return undefined;
  const issuedDay = daysSinceEpoch(options.now);
  const token = (deliveryId: string, use: 'open' | 'click', link: number) => signLinkToken({ deliveryId, use, link, issuedDay }, options.encryptionKey);
  return new Map(
    tracked.map(({ id }) => [
      id,
      trackHtml(html, {
        ...(email.track.opens ? { pixelUrl: `https://${trackingHost}/o/${token(id, 'open', 0)}` } : {}),
        ...(email.track.clicks ? { linkUrl: (index: number) => `https://${trackingHost}/c/${token(id, 'click', index)}` } : {}),
      }),
    ]),
  );
}
