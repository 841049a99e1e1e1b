/** What the listener takes for routed mail (docs/api-decisions.md, "Inbound mail"): a message's size and its recipients. */
export const INBOUND_MAIL_MAX_BYTES = 25 * 1024 * 1024;
export const INBOUND_MAX_RECIPIENTS = 50;

