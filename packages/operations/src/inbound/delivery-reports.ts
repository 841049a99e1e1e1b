// Reports received for mail we sent (DSNs, ARF): whether one names a delivery of ours, and what it changes.
export { applyDeliveryReport, returnPathDeliveryExists } from '@mailer/db';
