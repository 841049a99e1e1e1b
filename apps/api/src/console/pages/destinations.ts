import { liftDestination, listDestinations } from '@mailer/operations';
import { readDestinationSnapshots, requestDestinationLift } from '@mailer/queue';
import { field, type ConsoleRoute } from '../console-route';
import { actionButton, CONSOLE_PATH, page, table } from '../layout';

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
        ['Provider', 'MX hosts', 'Domains', 'Owed', 'Held', 'In flight', 'Concurrency', 'Suspended until', 'Daemons', 'Actions'],
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
          d.suspended_until && d.id
            ? actionButton(c.session, `${CONSOLE_PATH}/destinations/lift`, `Lift the suspension of ${d.provider ?? d.mx_hosts.join(', ')}`, { destination: d.id })
            : '—',
        ]),
        'Nothing is owed to any destination.',
      ),
    );
  },
};

/** The CLI's `destination lift`: the live daemons try the destination again within a snapshot period. */
const liftSuspensionChange: ConsoleRoute = {
  method: 'post',
  path: '/destinations/lift',
  title: 'Destinations',
  async handle(c) {
    const { redis, config } = c.deps;
    await liftDestination(
      {
        destinationSnapshots: () => readDestinationSnapshots(redis, config.redisPrefix),
        requestLift: (destination, at) => requestDestinationLift(redis, config.redisPrefix, destination, at),
      },
      field(c.form, 'destination') ?? '',
      c.deps.now(),
    );
    c.res.redirect(303, `${CONSOLE_PATH}/destinations`);
  },
};

export const destinationRoutes: ConsoleRoute[] = [destinationsPage, liftSuspensionChange];
