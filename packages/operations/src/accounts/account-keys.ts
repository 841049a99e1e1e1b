// The sending and management keys of an account: issued, listed, rotated, revoked, and looked up on each request.
export { createManagementKey, listAccountKeys, revokeKey, rotateSendingKey, type KeyLookup } from '@mailer/db';
