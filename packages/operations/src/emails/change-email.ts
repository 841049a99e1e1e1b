// Cancelling an email's deliveries, moving its scheduled time, and making its deferred deliveries due now.
export { cancelEmail, makeDeferredDeliveriesDue, rescheduleEmail } from '@mailer/db';
