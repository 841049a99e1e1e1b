export * from './errors';
export * from './ids';
export * from './keys/api-keys';
export * from './pagination/cursor';
export * from './crypto/seal';
export * from './crypto/dkim-key';
export * from './keys/operator-token';
export * from './senders';
