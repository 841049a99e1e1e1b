// The TLS sessions of a day (RFC 8460) and the claim on sending each day's report once.
export { claimTlsReport, settleTlsReport, tlsSessionsOfDay } from '@mailer/db';
