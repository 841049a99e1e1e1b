export * from './catalog';
export { openRedis, waitForRedis, type Redis, type RedisTarget } from './connection';
export { createDeliveryQueue, type DeliveryQueue, type DueMessage } from './producer';
export { reconcileOwedDeliveries, RECONCILE_GRACE_MS } from './reconcile-owed-deliveries';
export { SharedDestinationLimits, HOLDER_TTL_MS, type SharedGrant, type SharedLimits } from './destination-limits';
export {
  mergeDestinationSnapshots,
  publishDestinationSnapshot,
  readDestinationSnapshots,
  removeDestinationSnapshot,
  SNAPSHOT_TTL_MS,
  type DaemonSnapshot,
  type DestinationSnapshot,
  type MergedDestination,
} from './destination-snapshots';
export { WarmUpCounters } from './warm-up-counters';
export { LIFT_TTL_MS, readDestinationLifts, requestDestinationLift } from './destination-lifts';
export { AuthThrottle, AUTH_THROTTLE_WINDOW_MS, MAX_FAILED_AUTHS, type ThrottleVerdict } from './auth-throttle';
