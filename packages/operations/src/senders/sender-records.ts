// The sender identities of a domain, as the stores keep them.
export { deleteSender, findSender, listSenders, updateSender, type SenderRecord } from '@mailer/db';
