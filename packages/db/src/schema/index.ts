export * from './accounts';
export * from './api-keys';
export * from './domains';
export * from './senders';
export * from './emails';
export * from './intake';
export * from './suppressions';
export * from './webhooks';
