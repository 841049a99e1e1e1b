/**
 * The extra header fields a message may carry (docs/api-decisions.md, "Send API additions"):
 * `X-…` fields and the few standard fields a sender legitimately sets itself (list
 * unsubscription, RFC 2369 and RFC 8058; list identity, RFC 2919; threading, RFC 5322). Any
 * other name could contradict what the service writes (From, Date, DKIM-Signature, …).
 */
export const STANDARD_EXTRA_HEADERS = ['List-Unsubscribe', 'List-Unsubscribe-Post', 'List-Id', 'References', 'In-Reply-To'] as const;
export const MAX_EXTRA_HEADERS = 50;
/** RFC 5322 2.1.1: no line longer than 998 octets; a value alone is held to it. */
export const HEADER_VALUE_MAX_OCTETS = 998;
/** A field name that still leaves a folded line room for its value (`Name: ` within 78 octets). */
export const HEADER_NAME_MAX_CHARS = 76;
/** The one value RFC 8058 defines for List-Unsubscribe-Post. */
export const ONE_CLICK = 'List-Unsubscribe=One-Click';

export interface ExtraHeader {
  /** As it goes on the wire: the standard spelling for standard fields, the caller's for `X-…`. */
  name: string;
  value: string;
}

export interface HeaderProblem {
  /** The member the problem is about, or undefined for the object as a whole. */
  name?: string;
  message: string;
}

const X_NAME = /^X-[A-Za-z0-9-]+$/i;
const CONTROL_EXCEPT_TAB = /[\0-\x08\x0a-\x1f\x7f]/;
const LINE_BREAK_OR_NUL = /[\r\n\0]/;
const PRINTABLE_ASCII_WSP = /^[\x20-\x7e\t]*$/;

const standardName = (name: string) => STANDARD_EXTRA_HEADERS.find((s) => s.toLowerCase() === name.toLowerCase());

/**
 * Checks an object of extra headers and returns them as they will be written, or the
 * problems found. Names are compared case-insensitively (two spellings of one field are
 * refused); values keep their text, trimmed. Standard fields are structured (URIs,
 * message ids): printable ASCII whose every unbroken run fits a line beside the name,
 * since they cannot be encoded as RFC 2047 words; `X-…` values may hold any text (long
 * runs and non-ASCII go out as encoded words). List-Unsubscribe-Post needs the one-click
 * value and a List-Unsubscribe beside it (RFC 8058 3.1).
 */
export function checkExtraHeaders(input: Record<string, string>): { ok: true; value: ExtraHeader[] } | { ok: false; problems: HeaderProblem[] } {
  const problems: HeaderProblem[] = [];
  const entries = Object.entries(input);
  if (entries.length > MAX_EXTRA_HEADERS) problems.push({ message: `at most ${MAX_EXTRA_HEADERS} header fields` });
  const seen = new Set<string>();
  const headers: ExtraHeader[] = [];
  for (const [rawName, rawValue] of entries) {
    const standard = standardName(rawName);
    if (!standard && !(X_NAME.test(rawName) && rawName.length <= HEADER_NAME_MAX_CHARS)) {
      problems.push({
        name: rawName,
        message: `not an allowed header name: X-… (letters, digits and hyphens, at most ${HEADER_NAME_MAX_CHARS} characters) or one of ${STANDARD_EXTRA_HEADERS.join(', ')}`,
      });
      continue;
    }
    const key = rawName.toLowerCase();
    if (seen.has(key)) {
      problems.push({ name: rawName, message: 'names the same header field as another member (names are case-insensitive)' });
      continue;
    }
    seen.add(key);
    const value = rawValue.trim();
    const valueProblem = headerValueProblem(standard ?? rawName, value, standard !== undefined);
    if (valueProblem) problems.push({ name: rawName, message: valueProblem });
    else headers.push({ name: standard ?? rawName, value });
  }
  const post = headers.find((h) => h.name === 'List-Unsubscribe-Post');
  if (post && post.value !== ONE_CLICK) problems.push({ name: post.name, message: `must be "${ONE_CLICK}" (RFC 8058)` });
  if (post && !headers.some((h) => h.name === 'List-Unsubscribe') && !seen.has('list-unsubscribe')) {
    problems.push({ name: post.name, message: 'needs a List-Unsubscribe header beside it (RFC 8058)' });
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value: headers };
}

function headerValueProblem(name: string, value: string, structured: boolean): string | null {
  if (LINE_BREAK_OR_NUL.test(value)) return 'must not contain CR, LF or NUL';
  if (CONTROL_EXCEPT_TAB.test(value)) return 'must not contain control characters';
  if (value === '') return 'must not be empty or only white space';
  if (Buffer.byteLength(value) > HEADER_VALUE_MAX_OCTETS) return `must be at most ${HEADER_VALUE_MAX_OCTETS} octets (UTF-8)`;
  if (!structured) return null;
  if (!PRINTABLE_ASCII_WSP.test(value)) return 'must be printable ASCII (a structured field cannot be encoded)';
  const longestRun = Math.max(...value.split(/[ \t]/).map((run) => run.length));
  if (name.length + 2 + longestRun > HEADER_VALUE_MAX_OCTETS) {
    return `has a run without white space too long to fold: ${name}: and it must fit in ${HEADER_VALUE_MAX_OCTETS} octets`;
  }
  return null;
}
