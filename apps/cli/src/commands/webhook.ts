import type { Command } from 'commander';
import { redeliverWebhook, sendTestWebhook } from '@mailer/operations';
import { printResult } from '../output';
import type { CliDependencies } from '../cli-dependencies';

/** `webhook redeliver` and `webhook test` (docs/api-decisions.md, "Queue operations"); the daemons' webhook sender sends them. */
export function registerWebhookCommands(program: Command, deps: CliDependencies): void {
  const webhook = program.command('webhook').description("act on any account's webhook endpoints and deliveries");
  webhook
    .command('redeliver')
    .description('send a webhook delivery once more (the same event and webhook-id), due now; one still pending is refused')
    .argument('<id>', 'the webhook delivery id (whd_…), as GET /v1/webhooks/{id}/deliveries lists it')
    .option('--json', 'print {"id","webhook_id","status"}')
    .action(async (id: string, options: { json?: boolean }) => {
      const result = await redeliverWebhook(deps.db, id, deps.now());
      printResult(deps.stdout, options.json, result, `Webhook delivery ${id} is pending again: a daemon sends it within a second.`);
    });
  webhook
    .command('test')
    .description('send a signed webhook.test event to an enabled endpoint, whatever event types it subscribes to')
    .argument('<id>', 'the webhook endpoint id (wh_…)')
    .option('--json', 'print {"webhook_id","event_id","delivery_id"}')
    .action(async (id: string, options: { json?: boolean }) => {
      const result = await sendTestWebhook(deps.db, id, deps.now());
      printResult(deps.stdout, options.json, result, `Test event ${result.event_id} queued for ${id} as delivery ${result.delivery_id}.`);
    });
}
