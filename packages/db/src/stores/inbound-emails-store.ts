import { isIdOf, type InboundMessage } from '@mailer/domain';
import type { Queryable, Row } from '../database';
import { inTransaction } from '../transaction';
import type { Database } from '../database';
import { newestFirst, type PagePosition } from './keyset';
import { webhookEventsOutbox, type DataEvent } from './webhook-outbox-store';

/** mailauth's verdicts, each `{result, …}`. */
export interface InboundAuth {
  spf: Record<string, unknown>;
  dkim: Record<string, unknown>;
  dmarc: Record<string, unknown>;
  arc: Record<string, unknown>;
}

export interface InboundEmail {
  id: string;
  accountId: string;
  routeId: string;
  mailFrom: string;
  recipients: string[];
  message: InboundMessage;
  auth: InboundAuth;
  size: number;
  createdAt: Date;
}

const toInbound = (r: Row): InboundEmail => ({
  id: r.id,
  accountId: r.account_id,
  routeId: r.route_id,
  mailFrom: r.mail_from,
  recipients: r.recipients,
  message: r.message,
  auth: r.auth,
  size: r.size,
  createdAt: r.created_at,
});

const inboundColumns = (db: Queryable) => db`id, account_id, route_id, mail_from, recipients, message, auth, size, created_at`;

export interface NewInboundEmail extends Omit<InboundEmail, 'size'> {
  remoteAddress: string;
  raw: Buffer;
  /** The `email.received` event: to this endpoint, or (null) to every endpoint subscribed to the type. */
  webhookId: string | null;
  event: unknown;
}

/**
 * Stores received messages with their `email.received` events in one transaction: once it has
 * committed, the listener answers 250 (docs/api-decisions.md, "Inbound mail").
 */
export async function insertInboundEmails(db: Database, emails: readonly NewInboundEmail[]): Promise<void> {
  await inTransaction(db, async (tx) => {
    const events: DataEvent[] = emails.map((e) => ({ accountId: e.accountId, type: 'email.received', data: e.event, at: e.createdAt, endpointId: e.webhookId }));
    await tx.commit(
      ...emails.map(
        (e) => tx.sql`
          insert into inbound_emails (id, account_id, route_id, mail_from, recipients, remote_address, from_address, subject, message, auth, raw, size, created_at)
          values (${e.id}, ${e.accountId}, ${e.routeId}, ${e.mailFrom}, ${e.recipients}::text[], ${e.remoteAddress}, ${fromAddress(e.message.from)},
                  ${e.message.subject}, ${JSON.stringify(e.message)}::text::jsonb, ${JSON.stringify(e.auth)}::text::jsonb, ${e.raw}, ${e.raw.length}, ${e.createdAt})`,
      ),
      webhookEventsOutbox(tx, events),
    );
  });
}

/** `Name <a@b>` or `a@b` to `a@b` in lower case, for the `from` filter. */
function fromAddress(from: string | null): string | null {
  if (!from) return null;
  const open = from.lastIndexOf('<');
  const close = from.indexOf('>', open);
  return (open >= 0 && close > open ? from.slice(open + 1, close) : from).trim().toLowerCase();
}

export async function findInboundEmail(db: Queryable, accountId: string, id: string): Promise<InboundEmail | undefined> {
  if (!isIdOf('inboundEmail', id)) return undefined;
  const [row] = await db`select ${inboundColumns(db)} from inbound_emails where id = ${id} and account_id = ${accountId}`;
  return row && toInbound(row);
}

/** The bytes as they arrived. */
export async function findInboundRaw(db: Queryable, accountId: string, id: string): Promise<Buffer | undefined> {
  if (!isIdOf('inboundEmail', id)) return undefined;
  const [row] = await db`select raw from inbound_emails where id = ${id} and account_id = ${accountId}`;
  return row?.raw;
}

export interface InboundListFilters {
  /** An envelope recipient (lower case): the address a route received it at. */
  to?: string;
  /** The From header's address (lower case). */
  from?: string;
  receivedAfter?: Date;
  receivedBefore?: Date;
}

export async function listInboundEmails(db: Queryable, accountId: string, filters: InboundListFilters, position: PagePosition | undefined, limit: number): Promise<InboundEmail[]> {
  const page = newestFirst(db, position, limit);
  const rows = await db`
    select ${inboundColumns(db)} from inbound_emails
     where account_id = ${accountId}
       ${filters.to ? db`and ${filters.to} = any(recipients)` : db``}
       ${filters.from ? db`and from_address = ${filters.from}` : db``}
       ${filters.receivedAfter ? db`and created_at > ${filters.receivedAfter}` : db``}
       ${filters.receivedBefore ? db`and created_at < ${filters.receivedBefore}` : db``}
       ${page.after} ${page.page}`;
  return rows.map(toInbound);
}
