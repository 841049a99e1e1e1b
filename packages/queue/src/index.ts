export * from './catalog';
export { openRedis, waitForRedis, type Redis } from './connection';
export { createDeliveryQueue, type DeliveryQueue, type DueMessage } from './producer';
export { reconcileOwedDeliveries, RECONCILE_GRACE_MS } from './reconcile-owed-deliveries';
