// The daemon's leases on messages: claimed for a delivery run, kept alive while it lasts, released after it.
export {
  claimMessages,
  nextObligation,
  releaseLease,
  renewLeases,
  stillLeased,
  type Claim,
  type DeliveryContext,
  type HeldLease,
  type Lease,
  type LeasedDelivery,
} from '@mailer/db';
