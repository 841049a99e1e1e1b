import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { createdAt, instant, updatedAt } from './columns';

/** An account's webhook endpoint (docs/api-decisions.md, "Webhooks"). Secrets are sealed with ENCRYPTION_KEY. */
export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id').notNull(),
    url: text('url').notNull(),
    events: text('events').array().notNull(),
    description: text('description'),
    status: text('status', { enum: ['enabled', 'disabled'] }).notNull().default('enabled'),
    /** The shape its events are sent in (WEBHOOK_FORMATS). */
    format: text('format', { enum: ['default', 'resend', 'postmark'] }).notNull().default('default'),
    /** A postmark-format endpoint's HTTP Basic `user:password`, taken out of its URL and sealed like the secrets. */
    basicAuthSealed: text('basic_auth_sealed'),
    secretSealed: text('secret_sealed').notNull(),
    /** After a rotation, the previous secret keeps signing beside the new one until `previous_secret_expires_at`. */
    previousSecretSealed: text('previous_secret_sealed'),
    previousSecretExpiresAt: instant('previous_secret_expires_at'),
    /** Since when every delivery to it has failed (null after a success): it is disabled after WEBHOOK_DISABLE_AFTER. */
    failingSince: instant('failing_since'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    deletedAt: instant('deleted_at'),
  },
  (t) => [index('webhook_endpoints_account_list_idx').on(t.accountId, t.createdAt.desc(), t.id.desc()).where(sql`deleted_at is null`)],
);

/**
 * The outbox: one row per event, written in the transaction of the change it reports, when
 * some endpoint of the account subscribes to its type. The body is composed when sent.
 */
export const webhookEvents = pgTable('webhook_events', {
  id: text('id').primaryKey(),
  accountId: text('account_id').notNull(),
  type: text('type').notNull(),
  /** For email events: the delivery's transition. */
  emailId: text('email_id'),
  recipient: text('recipient'),
  recipientKind: text('recipient_kind'),
  status: text('status'),
  cause: jsonb('cause'),
  attemptCount: integer('attempt_count'),
  /** For domain events: the domain representation as it was. */
  data: jsonb('data'),
  occurredAt: instant('occurred_at').notNull(),
});

/** One event for one endpoint: its attempts, due time and lease (a sender owns it while sending). */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: text('id').primaryKey(),
    endpointId: text('endpoint_id').notNull(),
    eventId: text('event_id').notNull(),
    accountId: text('account_id').notNull(),
    status: text('status', { enum: ['pending', 'succeeded', 'failed'] }).notNull().default('pending'),
    attemptCount: integer('attempt_count').notNull().default(0),
    lastAttemptAt: instant('last_attempt_at'),
    lastResponseStatus: integer('last_response_status'),
    nextAttemptAt: instant('next_attempt_at').notNull(),
    leaseExpiresAt: instant('lease_expires_at'),
    createdAt: createdAt(),
  },
  (t) => [
    // Retention's look for finished deliveries.
    index('webhook_deliveries_due_idx').on(t.status, t.nextAttemptAt),
    // The claim's per-endpoint look at due deliveries (claimWebhookDeliveries).
    index('webhook_deliveries_pending_idx').on(t.endpointId, t.nextAttemptAt).where(sql`status = 'pending'`),
    index('webhook_deliveries_endpoint_idx').on(t.endpointId, t.createdAt.desc(), t.id.desc()),
    // Retention deletes an event once none of its deliveries is left.
    index('webhook_deliveries_event_idx').on(t.eventId),
  ],
);
