import { listDestinations } from '@mailer/operations';
import { readDestinationSnapshots } from '@mailer/queue';
import type { ConsoleRoute } from '../console-route';
import { page, table } from '../layout';

const destinationsPage: ConsoleRoute = {
  method: 'get',
  path: '/destinations',
  title: 'Destinations',
  async handle(c) {
    const snapshots = await readDestinationSnapshots(c.deps.redis, c.deps.config.redisPrefix);
    const destinations = await listDestinations(c.deps.db, snapshots);
    return page(
      c.session,
      'Destinations',
      table(
        'Providers and MX host sets with owed deliveries, and what the live daemons hold of them (a few seconds old)',
        ['Provider', 'MX hosts', 'Domains', 'Owed', 'Held', 'In flight', 'Concurrency', 'Suspended until', 'Daemons'],
        destinations.map((d) => [
          d.provider ?? '—',
          d.mx_hosts.join(', ') || '(not routed yet)',
          d.domains.join(', '),
          d.owed,
          d.held,
          d.in_flight,
          d.concurrency,
          d.suspended_until ?? '—',
          d.daemons,
        ]),
        'Nothing is owed to any destination.',
      ),
    );
  },
};

export const destinationRoutes: ConsoleRoute[] = [destinationsPage];
