// The deliveries counted by status, and those still owed, for the CLI and /metrics.
export { countDeliveriesByStatus, owedDeliveriesSummary, sendingStatuses, type OwedDeliveriesSummary } from '@mailer/db';
