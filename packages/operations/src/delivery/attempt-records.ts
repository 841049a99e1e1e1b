// The delivery attempts the daemon records, each with the decision it applies to its delivery.
export { writeAttempts, type AttemptWrite, type DeliveryDecision, type RecordedAttempt } from '@mailer/db';
