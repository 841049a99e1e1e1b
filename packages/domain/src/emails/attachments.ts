import { CONTENT_ID_MAX_CHARS, FILENAME_MAX_CHARS, scalarLength } from './email-limits';

/** Problems with an attachment's filename: 1..255 characters, not blank, no `/`, `\` or control characters. */
export function filenameProblems(filename: string): string[] {
  if (/[\r\n\0]/.test(filename)) return ['must not contain CR, LF or NUL (header injection)'];
  const problems: string[] = [];
  const length = scalarLength(filename);
  if (filename.trim().length === 0) problems.push('must not be empty or only white space');
  if (length > FILENAME_MAX_CHARS) problems.push(`must be at most ${FILENAME_MAX_CHARS} characters (has ${length})`);
  if (/[/\\]/.test(filename)) problems.push('must not contain / or \\');
  if (/\p{Cc}/u.test(filename)) problems.push('must not contain control characters');
  if (/\p{Cs}/u.test(filename)) problems.push('must be well-formed Unicode (no unpaired surrogates)');
  if (filename === '.' || filename === '..') problems.push('must be a file name, not . or ..');
  return problems;
}

/** Bytes a base64 text decodes to, computed without decoding it. */
export function base64DecodedLength(text: string): number {
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((text.length * 3) / 4) - padding);
}

/**
 * Strict RFC 4648 section 4 base64: the standard alphabet, no white space or line breaks,
 * length a multiple of 4, canonical padding (unused bits zero). Undefined when not so.
 * Encoding the decoded bytes again must give back the very same text, which checks all of it.
 */
export function decodeStrictBase64(text: string): Buffer | undefined {
  if (text.length % 4 !== 0) return undefined;
  const bytes = Buffer.from(text, 'base64');
  return bytes.toString('base64') === text ? bytes : undefined;
}

/** Common types by extension; anything else is application/octet-stream. */
const CONTENT_TYPES: Record<string, string> = {
  pdf: 'application/pdf',
  txt: 'text/plain',
  csv: 'text/csv',
  htm: 'text/html',
  html: 'text/html',
  md: 'text/markdown',
  ics: 'text/calendar',
  json: 'application/json',
  xml: 'application/xml',
  rtf: 'application/rtf',
  zip: 'application/zip',
  gz: 'application/gzip',
  eml: 'message/rfc822',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  svg: 'image/svg+xml',
  bmp: 'image/bmp',
  tif: 'image/tiff',
  tiff: 'image/tiff',
  ico: 'image/x-icon',
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  mp4: 'video/mp4',
  doc: 'application/msword',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xls: 'application/vnd.ms-excel',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  ppt: 'application/vnd.ms-powerpoint',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  odt: 'application/vnd.oasis.opendocument.text',
  ods: 'application/vnd.oasis.opendocument.spreadsheet',
};

export const DEFAULT_CONTENT_TYPE = 'application/octet-stream';

export function contentTypeForFilename(filename: string): string {
  const dot = filename.lastIndexOf('.');
  if (dot < 0) return DEFAULT_CONTENT_TYPE;
  return CONTENT_TYPES[filename.slice(dot + 1).toLowerCase()] ?? DEFAULT_CONTENT_TYPE;
}

// RFC 2045 tokens for type and subtype; parameters are not accepted.
const MEDIA_TYPE = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,127}\/[A-Za-z0-9!#$%&'*+.^_`|~-]{1,127}$/;

/**
 * A given content_type: `type/subtype`, lower-cased, or undefined when malformed. Multipart
 * types are refused because they would need a boundary of their own inside the message.
 */
export function normalizeContentType(input: string): string | undefined {
  const value = input.trim().toLowerCase();
  if (!MEDIA_TYPE.test(value) || value.startsWith('multipart/')) return undefined;
  return value;
}

// The id-left/id-right characters of a Message-ID (RFC 5322 atext, '.' and '@'), without the angle brackets.
const CONTENT_ID = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~.@-]+$/;

/** Problems with a content_id, referenced from the HTML as `cid:<content_id>`. */
export function contentIdProblems(contentId: string): string[] {
  if (/[\r\n\0]/.test(contentId)) return ['must not contain CR, LF or NUL (header injection)'];
  if (contentId.length === 0 || contentId.length > CONTENT_ID_MAX_CHARS) return [`must be 1 to ${CONTENT_ID_MAX_CHARS} characters`];
  if (!CONTENT_ID.test(contentId)) return ['may contain only letters, digits and !#$%&\'*+/=?^_`{|}~.@- (no angle brackets or spaces)'];
  return [];
}
