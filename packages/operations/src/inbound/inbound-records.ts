// The received emails and their raw messages, as stored.
export { findInboundEmail, findInboundRaw, insertInboundEmails, listInboundEmails, type InboundAuth, type InboundEmail, type InboundListFilters } from '@mailer/db';
