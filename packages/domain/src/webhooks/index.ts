export * from './recorded-webhook-event';
export * from './webhook-attachment-content';
export * from './webhook-credentials';
export * from './webhook-events';
export * from './webhook-formats';
export * from './webhook-url';
