export * from './domain-name';
export * from './external-id';
export * from './dns-records';
export * from './dkim-record';
export * from './dmarc-record';
export * from './txt-record';
export * from './dns-check';
export * from './domain-creation';
