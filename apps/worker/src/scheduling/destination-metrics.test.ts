import { Registry } from 'prom-client';
import type { DestinationSnapshot } from '@mailer/queue';
import { LABELLED_DESTINATIONS, registerDestinationGauges } from './destination-metrics';

const destination = (i: number, held: number, suspended = false): DestinationSnapshot => ({
  destination: `mx${i}.example`,
  id: `d_${String(i).padStart(12, '0')}`,
  provider: null,
  mxHosts: [`mx${i}.example`],
  domains: [`example${i}.test`],
  held,
  inFlight: 1,
  concurrency: 5,
  suspendedUntil: suspended ? new Date().toISOString() : null,
});

describe('destination gauges', () => {
  it('label the destinations holding the most by id and sum the rest as other', async () => {
    const registry = new Registry();
    const snapshot = [...Array.from({ length: 14 }, (_, i) => destination(i, i + 1)), destination(99, 1_000, true)];
    registerDestinationGauges(registry, () => snapshot);
    const held = (await registry.getSingleMetric('mailer_destination_held_deliveries')!.get()).values;
    expect(held).toHaveLength(LABELLED_DESTINATIONS + 1);
    expect(held.find((v) => v.labels.destination === 'd_000000000099')?.value).toBe(1_000);
    // The five holding least (1 to 5) are summed.
    expect(held.find((v) => v.labels.destination === 'other')?.value).toBe(1 + 2 + 3 + 4 + 5);
    const inFlight = (await registry.getSingleMetric('mailer_destination_in_flight')!.get()).values;
    expect(inFlight.find((v) => v.labels.destination === 'other')?.value).toBe(5);
    const suspended = (await registry.getSingleMetric('mailer_destination_suspended')!.get()).values;
    expect(suspended.find((v) => v.labels.destination === 'd_000000000099')?.value).toBe(1);
    expect(JSON.stringify(await registry.metrics())).not.toMatch(/example/);
  });

  it('label every provider by its name, whatever it holds, beside the other destinations', async () => {
    const registry = new Registry();
    const provider = { ...destination(50, 0), destination: 'provider:gmail', id: 'gmail', provider: 'gmail', mxHosts: ['aspmx.l.google.com'] };
    const snapshot = [...Array.from({ length: 14 }, (_, i) => destination(i, i + 1)), provider];
    registerDestinationGauges(registry, () => snapshot);
    const held = (await registry.getSingleMetric('mailer_destination_held_deliveries')!.get()).values;
    expect(held).toHaveLength(LABELLED_DESTINATIONS + 2);
    expect(held.find((v) => v.labels.destination === 'gmail')?.value).toBe(0);
    expect(held.find((v) => v.labels.destination === 'other')?.value).toBe(1 + 2 + 3 + 4);
  });
});
