export * from './route-pattern';
export * from './inbound-limits';
export * from './inbound-message';
