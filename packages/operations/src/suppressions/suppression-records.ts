// The account's suppression list: the addresses it does not send to.
export { addSuppression, findSuppression, listSuppressions, removeSuppression, type Suppression } from '@mailer/db';
