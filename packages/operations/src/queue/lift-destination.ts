import { findDestination, type DestinationSnapshots } from './queue-selection';

export interface DestinationLiftDependencies {
  destinationSnapshots: DestinationSnapshots;
  /** requestDestinationLift of @mailer/queue, on the service's Redis and prefix. */
  requestLift: (destination: string, at: Date) => Promise<void>;
}

/**
 * `destination lift` (docs/api-decisions.md, "Queue operations"): asks every live daemon that
 * holds the destination suspended to try it again at once; they apply it within a snapshot
 * period (a few seconds), and `queue destinations` shows it once they have. A destination no
 * daemon holds suspended is left alone (`lifted: false`). Mail it deferred meanwhile keeps its
 * retry time: `queue flush --destination` attempts it now.
 */
export async function liftDestination(deps: DestinationLiftDependencies, named: string, now: Date) {
  const found = await findDestination(deps.destinationSnapshots, named);
  const suspended = found.suspendedUntil !== null;
  if (suspended) await deps.requestLift(found.destination, now);
  return { id: found.id, mx_hosts: found.destination.split(','), suspended_until: found.suspendedUntil, lifted: suspended };
}
