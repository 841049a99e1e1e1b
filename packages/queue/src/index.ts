export * from './catalog';
export { openRedis, type Redis } from './connection';
export { createDeliveryQueue, type DeliveryQueue } from './producer';
