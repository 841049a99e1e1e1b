import { newId } from '@mailer/domain';
import { readInboundMessage } from '@mailer/message';
import { insertInboundEmails, type RoutedRecipient, toEmailReceivedData } from '@mailer/operations';
import type { InboundDependencies } from '../container';
import { authenticateMail, type SmtpPeer } from './authenticate-mail';

/** A recipient RCPT took for a route. */
export interface RoutedAddress {
  address: string;
  route: RoutedRecipient;
}

/** The message could not be read within mailparser's bounds: refused at the end of DATA, never bounced later. */
export class UnreadableMailError extends Error {
  override readonly name = 'UnreadableMailError';
}

/**
 * Receives one message for its routed recipients (docs/api-decisions.md, "Inbound mail"): read
 * with mailparser, authenticated with mailauth, then stored whole, one `inb_…` per route, each with
 * its `email.received` event, in one transaction; the listener answers 250 once it committed.
 * Reading and authenticating take a turn of the reading limit, as reports do.
 */
export async function receiveMail(deps: InboundDependencies, raw: Buffer, peer: SmtpPeer, recipients: readonly RoutedAddress[]): Promise<string[]> {
  const { message, auth } = await deps.reading.run(async () => {
    const message = await readInboundMessage(raw).catch((error: Error) => {
      throw new UnreadableMailError(error.message);
    });
    return { message, auth: await authenticateMail(raw, peer, deps.lookup, deps.config.returnPath.inboundHost) };
  });
  const byRoute = new Map<string, RoutedAddress[]>();
  for (const r of recipients) byRoute.set(r.route.routeId, [...(byRoute.get(r.route.routeId) ?? []), r]);
  const createdAt = deps.now();
  const emails = [...byRoute.values()].map((group) => {
    const { route } = group[0]!;
    const email = { id: newId('inboundEmail'), accountId: route.accountId, routeId: route.routeId, mailFrom: peer.mailFrom, recipients: group.map((g) => g.address.toLowerCase()), message, auth, size: raw.length, createdAt };
    return { ...email, remoteAddress: peer.remoteAddress, raw, webhookId: route.webhookId, event: toEmailReceivedData(email) };
  });
  await insertInboundEmails(deps.db, emails);
  for (const email of emails) deps.logger.info('inbound mail received', { account_id: email.accountId, inbound_email_id: email.id, route_id: email.routeId });
  return emails.map((e) => e.id);
}
