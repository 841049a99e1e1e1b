export * from './tls-report';
