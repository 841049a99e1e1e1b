export * from './display-name';
export * from './sender-email';
export * from './sender-state';
export * from './transport-security';
