export * from './provider-requirements';
export * from './compliance-report';
export * from './provider-tls';
