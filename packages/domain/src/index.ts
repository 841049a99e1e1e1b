export * from './errors';
export * from './ids';
export * from './keys/api-keys';
