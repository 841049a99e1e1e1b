export * from './causes';
export * from './classify-smtp-reply';
export * from './message-status';
export * from './retry-policy';
export * from './mx-order';
