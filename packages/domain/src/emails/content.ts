import { HTML_MAX_BYTES, PLAIN_MAX_BYTES, SUBJECT_MAX_CHARS, scalarLength } from './email-limits';

export type TextRule = { ok: true; value: string } | { ok: false; problems: string[] };

/** Trimmed; 1..998 characters; no CR, LF or NUL (header injection) nor any other control character. */
export function checkSubject(input: string): TextRule {
  if (/[\r\n\0]/.test(input)) return { ok: false, problems: ['must not contain CR, LF or NUL (header injection)'] };
  const value = input.trim();
  const problems: string[] = [];
  if (value.length === 0) problems.push('must not be empty or only white space');
  if (/\p{Cc}/u.test(value)) problems.push('must not contain control characters');
  const length = scalarLength(value);
  if (length > SUBJECT_MAX_CHARS) problems.push(`must be at most ${SUBJECT_MAX_CHARS} characters (has ${length})`);
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value };
}

export interface ContentInput {
  plain?: string;
  html?: string;
}

export interface ContentProblem {
  /** `plain`, `html`, or undefined for the content object as a whole. */
  part?: 'plain' | 'html';
  message: string;
}

const LIMITS = { plain: PLAIN_MAX_BYTES, html: HTML_MAX_BYTES } as const;

/** Every problem of the content object: sizes in UTF-8 bytes, no NUL, at least one part with text. */
export function contentProblems(content: ContentInput): ContentProblem[] {
  const problems: ContentProblem[] = [];
  for (const part of ['plain', 'html'] as const) {
    const text = content[part];
    if (text === undefined) continue;
    const bytes = Buffer.byteLength(text, 'utf8');
    if (bytes > LIMITS[part]) problems.push({ part, message: `must be at most ${LIMITS[part]} bytes in UTF-8 (has ${bytes})` });
    if (text.includes('\0')) problems.push({ part, message: 'must not contain NUL characters' });
  }
  if (!hasText(content.plain) && !hasText(content.html)) {
    problems.push({ message: 'needs plain or html with non-whitespace text' });
  }
  return problems;
}

function hasText(text: string | undefined): text is string {
  return text !== undefined && text.trim().length > 0;
}

/** The body parts as stored and sent: a part without non-whitespace text is left out. */
export function bodyParts(content: ContentInput): { text: string | null; html: string | null } {
  return { text: hasText(content.plain) ? content.plain : null, html: hasText(content.html) ? content.html : null };
}
