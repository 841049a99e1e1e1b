export * from './causes';
export * from './classify-smtp-reply';
export * from './message-status';
export * from './delivery-counters';
export * from './owed-attempt';
export * from './lease-timing';
export * from './retry-policy';
export * from './mx-order';
