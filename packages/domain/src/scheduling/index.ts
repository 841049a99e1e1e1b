export * from './destination-feedback';
export * from './destination-limits';
export * from './mx-bounds';
export * from './providers';
export * from './reply-rules';
