export { buildMime, type OutgoingMessage, type OutgoingAttachment } from './build-mime';
