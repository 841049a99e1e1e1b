/** Resend's optional Idempotency-Key, as its SDK sends it (`idempotencyKey` in the request options). */
export const RESEND_IDEMPOTENCY_KEY = {
  'Idempotency-Key': {
    required: false,
    description: 'Optional: 1 to 255 characters, live for 24 hours; without one the request is not deduplicated.',
  },
};
