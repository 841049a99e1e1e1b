import { Parser } from 'htmlparser2';

/**
 * The links of an HTML part that click tracking goes through (docs/api-decisions.md, "Opens and
 * clicks"): the first `href` of each `<a>` and `<area>` whose value (entities decoded, blanks
 * trimmed) is an absolute http: or https: URL, in document order. `mailto:`, `tel:`, fragments
 * and relative references stay as written. A link's index in this list is what its click token
 * carries, so the API finds the original URL by recomputing the list from the stored HTML with
 * this same function, never from the link itself.
 */
export function trackedLinks(html: string): string[] {
  return scanLinks(html).map((link) => link.url);
}

/** How a tracked copy of an HTML part is made: the pixel's URL, and each link's by its index in trackedLinks. */
export interface HtmlTracking {
  pixelUrl?: string;
  linkUrl?: (index: number) => string;
}

/** The most links a click token can name (its link index is 16 bits); later ones stay as written. */
export const MAX_TRACKED_LINKS = 0x10000;

/**
 * The HTML part with each tracked link's `href` attribute replaced by `linkUrl(index)` and, with
 * `pixelUrl`, a 1×1 image appended at its end (after `</html>` a browser still renders it in the
 * body). Everything else is kept byte for byte.
 */
export function trackHtml(html: string, tracking: HtmlTracking): string {
  let out = html;
  if (tracking.linkUrl) {
    const parts: string[] = [];
    let at = 0;
    scanLinks(html).forEach((link, index) => {
      if (index >= MAX_TRACKED_LINKS) return;
      parts.push(html.slice(at, link.start), `href="${escapeAttribute(tracking.linkUrl!(index))}"`);
      at = link.end;
    });
    parts.push(html.slice(at));
    out = parts.join('');
  }
  if (tracking.pixelUrl) out += `<img src="${escapeAttribute(tracking.pixelUrl)}" width="1" height="1" alt="">`;
  return out;
}

const escapeAttribute = (value: string) => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;');

const LINK_ELEMENTS: ReadonlySet<string> = new Set(['a', 'area']);
const TRACKED_URL = /^https?:\/\/[^\s]/i;

/** Where each tracked link's `href` attribute is in the text ([start, end)) and its URL. */
function scanLinks(html: string): { start: number; end: number; url: string }[] {
  const links: { start: number; end: number; url: string }[] = [];
  let element = '';
  let hrefSeen = false;
  const parser = new Parser(
    {
      onopentagname(name) {
        element = name;
        hrefSeen = false;
      },
      onattribute(name, value) {
        if (name !== 'href' || !LINK_ELEMENTS.has(element) || hrefSeen) return;
        // A browser follows the first href of an element only.
        hrefSeen = true;
        const url = value.trim();
        if (TRACKED_URL.test(url)) links.push({ start: parser.startIndex, end: parser.endIndex, url });
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.end(html);
  return links;
}
