export * from './leases';
export * from './attempts';
export * from './schedule';
export * from './operator-moves';
export * from './reports';
export * from './unsubscribe';
export * from './engagement';
