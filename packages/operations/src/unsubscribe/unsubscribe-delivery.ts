// A recipient's one-click unsubscribe (the List-Unsubscribe URL or mailto: address): what it changes.
export { unsubscribeDelivery, type UnsubscribeOutcome } from '@mailer/db';
