import { z } from 'zod';
import { accountProfile, accountProfileFrom, inTransaction, recentTestMessages, recentTestMessagesFrom, usageFigures, usageFiguresFrom, type Database } from '@mailer/db';
import { EMAIL_TYPES, TEST_RECIPIENTS_PER_MINUTE, testModeUsage, USAGE_WINDOWS, type EmailType, type PlanWindowField } from '@mailer/domain';
import { accountSendingState } from './account-sending-state';
import { sendingSchema, type SendingRepresentation } from './sending-representation';

const count = z.number().int().min(0);

type UsageField = (typeof USAGE_WINDOWS)[number]['usageField'];

export const accountViewSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    plan: z
      .object({
        ...(Object.fromEntries(USAGE_WINDOWS.map((w) => [w.planField, count.meta({ description: `Unique recipients accepted per rolling ${w.name}.` })])) as Record<
          PlanWindowField,
          typeof count
        >),
        max_active: count.meta({ description: 'Recipient deliveries queued, sending or deferred at once.' }),
        max_domains: count.meta({ description: 'Active sending domains.' }),
        max_webhook_endpoints: count.meta({ description: 'Webhook endpoints (enabled or disabled, not deleted); one more is `409 webhook_limit_exceeded`.' }),
        max_templates: count.meta({ description: 'Templates (not deleted).' }),
      })
      .meta({ id: 'Plan' }),
    usage: z
      .object({
        ...(Object.fromEntries(USAGE_WINDOWS.map((w) => [w.usageField, count.meta({ description: `Recipients accepted in the last ${w.name}, as the plan counts them.` })])) as Record<
          UsageField,
          typeof count
        >),
        active: count.meta({ description: 'Recipient deliveries queued, sending or deferred now.' }),
      })
      .meta({ id: 'Usage' }),
    sending: sendingSchema.meta({ description: "The transactional stream's sending status (`streams` has each stream's)." }),
    streams: z
      .object(Object.fromEntries(EMAIL_TYPES.map((stream) => [stream, z.object({ sending: sendingSchema })])) as Record<EmailType, z.ZodObject<{ sending: typeof sendingSchema }>>)
      .meta({ id: 'AccountStreams', description: 'Each stream, with its own sending status and rates (docs "Streams"): pausing one leaves the other sending.' }),
    test_mode: z
      .object({
        per_minute: count.meta({ description: `Recipients of test messages (sent with the test key) accepted per rolling minute: ${TEST_RECIPIENTS_PER_MINUTE}, whatever the plan.` }),
        minute: count.meta({ description: 'Recipients of test messages accepted in the last minute, as that bound counts them.' }),
      })
      .meta({ id: 'TestModeBound', description: 'The one bound test messages have instead of the plan; they count nothing of `plan` and `usage`.' }),
  })
  .meta({ id: 'Account' });

export type AccountView = z.infer<typeof accountViewSchema>;

/**
 * GET /v1/account: the plan and the usage read from the same counters and windows intake
 * judges requests by (usageFigures, USAGE_WINDOWS), in one read-only transaction so that
 * the figures are those of one moment, and the sending state (accountSendingState). The test
 * messages of the last minute are read as intake's test bound reads them (testModeUsage).
 */
export async function accountView(db: Database, accountId: string, now: Date): Promise<AccountView> {
  const seconds = USAGE_WINDOWS.map((w) => w.seconds);
  const read = await inTransaction(db, (tx) =>
    tx.commit({
      profile: accountProfile(tx.sql, accountId),
      usage: usageFigures(tx, accountId, now, seconds),
      recentTest: recentTestMessages(tx, accountId, new Date(now.getTime() - 60_000)),
    }),
  );
  const profile = accountProfileFrom(read.profile);
  // Keys reference their account and accounts are never deleted.
  if (!profile) throw new Error(`no account ${accountId}`);
  const figures = usageFiguresFrom(read.usage, seconds);
  const sending = await accountSendingState(db, accountId, now);
  if (!sending) throw new Error(`no sending state for ${accountId}`);
  return {
    id: profile.id,
    name: profile.name,
    plan: {
      ...(Object.fromEntries(USAGE_WINDOWS.map((w) => [w.planField, w.limit(figures.plan)])) as Record<PlanWindowField, number>),
      max_active: figures.plan.maxActive,
      max_domains: profile.maxDomains,
      max_webhook_endpoints: profile.maxWebhookEndpoints,
      max_templates: profile.maxTemplates,
    },
    usage: {
      ...(Object.fromEntries(USAGE_WINDOWS.map((w, i) => [w.usageField, figures.windows[i]!.used])) as Record<UsageField, number>),
      active: figures.active,
    },
    sending: sending.transactional,
    streams: Object.fromEntries(EMAIL_TYPES.map((stream) => [stream, { sending: sending[stream] }])) as Record<EmailType, { sending: SendingRepresentation }>,
    test_mode: { per_minute: TEST_RECIPIENTS_PER_MINUTE, minute: testModeUsage(recentTestMessagesFrom(read.recentTest)).windows[0]!.used },
  };
}
