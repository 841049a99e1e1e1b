import type { DeliveryTarget, HeldMessage } from './delivery-target';

/**
 * A test message (docs/api-decisions.md, "Test mode"): nothing is routed, built or sent; each
 * delivery's outcome is simulated and recorded as an attempt would be (AttemptRecorder.simulate).
 */
export const testModeTarget: DeliveryTarget = {
  async deliver(message: HeldMessage): Promise<void> {
    message.expect(1);
    void message.track(message.recorder.simulate(message.lease.deliveries, message.startedAt));
  },
};
