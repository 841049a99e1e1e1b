import { DELIVERY_STATUSES, type DeliveryStatus } from '@mailer/domain';
import type { Queryable } from '../database';

/**
 * Delivery statuses as SQL literals, taken from the one list (docs/api-decisions.md, "Data
 * layer", Statuses in SQL). A statement that must match a partial index over statuses cannot
 * bind them: the daemon runs generic plans, and PostgreSQL proves that a query implies an
 * index's predicate only from constants. Each value is checked against the list before it
 * becomes text, so nothing but the six statuses ever reaches the statement this way.
 */
function literal(status: DeliveryStatus): string {
  if (!(DELIVERY_STATUSES as readonly string[]).includes(status)) throw new Error(`not a delivery status: ${status}`);
  return `'${status}'`;
}

/** `'<status>'`, for `status = …`. */
export function statusLiteral(db: Queryable, status: DeliveryStatus) {
  return db.unsafe(literal(status));
}

/** `('<a>', '<b>', …)` in the order given, for `status in …` (an index's predicate keeps its order). */
export function statusSetLiteral(db: Queryable, statuses: readonly DeliveryStatus[]) {
  return db.unsafe(`(${statuses.map(literal).join(', ')})`);
}
