import { Gauge, type Registry } from 'prom-client';
import type { DestinationSnapshot } from '@mailer/queue';

/** Destinations of no provider with a label of their own; the rest are summed under `other`, so the label count stays bounded. */
export const LABELLED_DESTINATIONS = 10;

/**
 * Per-destination gauges, read from the scheduler at each scrape: each provider under its name
 * (a table of a few dozen at most), then the other destinations holding the most deliveries by
 * id (destinationId: labels never name a host), the rest as `other` (docs/api-decisions.md,
 * "Scheduling" and "Providers and egress pools").
 */
export function registerDestinationGauges(registry: Registry, snapshot: () => DestinationSnapshot[]): void {
  const gauges = {
    held: new Gauge({ name: 'mailer_destination_held_deliveries', help: 'Leased deliveries held per destination (queued or in a transaction).', labelNames: ['destination'], registers: [registry] }),
    inFlight: new Gauge({ name: 'mailer_destination_in_flight', help: 'SMTP transactions in flight per destination.', labelNames: ['destination'], registers: [registry] }),
    concurrency: new Gauge({ name: 'mailer_destination_concurrency', help: 'Transactions a destination may have at once now (adaptive).', labelNames: ['destination'], registers: [registry] }),
    suspended: new Gauge({ name: 'mailer_destination_suspended', help: 'Suspended destinations (1 each).', labelNames: ['destination'], registers: [registry] }),
  };
  // One collect for all four, on the first gauge prom-client asks.
  let collectedAt = -1;
  const collect = () => {
    const now = Date.now();
    if (now === collectedAt) return;
    collectedAt = now;
    const all = snapshot().sort((a, b) => b.held - a.held || b.inFlight - a.inFlight);
    for (const gauge of Object.values(gauges)) gauge.reset();
    const set = (label: string, d: Pick<DestinationSnapshot, 'held' | 'inFlight' | 'concurrency'> & { suspended: number }) => {
      gauges.held.inc({ destination: label }, d.held);
      gauges.inFlight.inc({ destination: label }, d.inFlight);
      gauges.concurrency.inc({ destination: label }, d.concurrency);
      gauges.suspended.inc({ destination: label }, d.suspended);
    };
    let labelled = 0;
    for (const d of all) {
      const label = d.provider ?? (labelled++ < LABELLED_DESTINATIONS ? d.id : 'other');
      set(label, { ...d, suspended: d.suspendedUntil ? 1 : 0 });
    }
  };
  for (const gauge of Object.values(gauges)) Object.assign(gauge, { collect });
}
