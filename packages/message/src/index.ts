export { buildMime, type OutgoingMessage, type OutgoingAttachment } from './build-mime';
export { plainAlternative } from './wire-safe';
