import type { DeliveryChanges, MessageDeliveries } from '@mailer/domain';
import type { Database, Row, Statement } from '../database';
import { inTransaction, type Transaction } from '../transaction';
import { lockedMessagesFrom, lockMessages } from './locked-messages';
import { messageAfter, writeTransitions, type MessageAfter } from './transition-writer';

/** What a change of deliveries leaves: the decision's answer, and every locked message's state after it. */
export interface ChangedDeliveries<T> {
  answer: T;
  /** By message id: changed ones as the write leaves them, the others as locked. */
  messages: Map<string, MessageAfter>;
}

export interface ChangeOptions<T> {
  /** A read sent with the lock in the same round trip (the claim's sending contexts); its rows go to the decision. */
  readAlongside?: (tx: Transaction) => Statement;
  /**
   * Writes the answer implies beyond the deliveries (a reschedule's new time on the message),
   * committed after the writer's statements.
   */
  alsoWrite?: (tx: Transaction, answer: T) => Statement[];
}

/**
 * The one way deliveries change once they exist (docs/api-decisions.md, "Data layer",
 * Changing deliveries): in one transaction, every delivery of the messages named is locked
 * (lock-order level 1, waiting for a claim or record in progress) and loaded; `decide`, a
 * pure decision of packages/domain (`(messages, …) → transitions`), says what changes; the
 * transition writer records it with every effect its reasons name, in the lock order, and
 * the transaction commits with that write. A message that does not exist is absent from
 * the map `decide` is given. What `decide` throws rolls the transaction back: nothing is
 * written. A decision that changes nothing commits nothing.
 */
export async function changeDeliveries<T>(
  db: Database,
  emailIds: readonly string[],
  decide: (messages: ReadonlyMap<string, MessageDeliveries>, alongside: readonly Row[]) => DeliveryChanges<T>,
  options: ChangeOptions<T> = {},
): Promise<ChangedDeliveries<T>> {
  return inTransaction(db, async (tx) => {
    const read = options.readAlongside?.(tx);
    const { locked, alongside } = await tx.send({ locked: lockMessages(tx, emailIds), ...(read ? { alongside: read } : {}) });
    const messages = lockedMessagesFrom(locked);
    const { transitions = [], observations = [], answer } = decide(messages, alongside ?? []);
    const changes = transitions.length + observations.length > 0;
    const written = changes ? writeTransitions(tx, { messages: [...messages.values()], transitions, observations }) : undefined;
    const statements = [...(written?.statements ?? []), ...(options.alsoWrite?.(tx, answer) ?? [])];
    if (statements.length > 0) await tx.commit(...statements);
    const after = new Map([...messages].map(([id, m]) => [id, written?.messages.get(id) ?? messageAfter(m.deliveries)]));
    return { answer, messages: after };
  });
}
