export * from './egress-address';
export * from './warm-up';
