export { buildMime, type OutgoingMessage, type OutgoingAttachment } from './build-mime';
export { plainAlternative } from './wire-safe';
export { readInboundMessage, inboundAttachmentContent, inboundAttachmentContents, INBOUND_MAX_PART_HEADER_BYTES, INBOUND_MAX_PARTS } from './read-inbound';
export { trackedLinks, trackHtml, MAX_TRACKED_LINKS, type HtmlTracking } from './tracked-html';
