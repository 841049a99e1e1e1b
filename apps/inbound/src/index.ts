export { createContainer, type InboundDependencies } from './container';
export { createInboundServer, listenInbound, MAX_RECIPIENTS } from './inbound-server';
export { readReport, type ParsedReport, type ReportedRecipient } from './reports/read-report';
export { applyReport } from './reports/apply-report';
