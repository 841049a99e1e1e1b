// What the daemon's reconciler walks: the messages owed a delivery job, and the held deliveries past their maximum age.
export { expireHeldDeliveries, owedDeliveryJobs } from '@mailer/db';
