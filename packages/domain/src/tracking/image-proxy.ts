import type { ImageProxy } from '../delivery/delivery-records';

/** Gmail fetches images through its proxy, whose user agent names it (`… (via ggpht.com GoogleImageProxy)`). */
const GMAIL = /GoogleImageProxy/;
/**
 * Apple Mail Privacy Protection prefetches every image of a message through Apple's relays, when
 * the message arrives rather than when it is read, with a bare WebKit user agent: no browser or
 * version token after `(KHTML, like Gecko)`, which Safari and Apple Mail's own fetches carry.
 */
const APPLE_MPP = /^Mozilla\/5\.0 \([^)]*\) AppleWebKit\/[\d.]+ \(KHTML, like Gecko\)$/;

/**
 * The image proxy an open's request came through, from its user agent (docs/api-decisions.md,
 * "Opens and clicks"): `gmail` for Gmail's image proxy, `apple_mpp` for Apple Mail Privacy
 * Protection's prefetch; null for anything else (a mail client itself, or a proxy not known).
 * An open through a proxy says that the message reached the mailbox, not that it was read.
 */
export function detectImageProxy(userAgent: string | null | undefined): ImageProxy | null {
  if (!userAgent) return null;
  if (GMAIL.test(userAgent)) return 'gmail';
  if (APPLE_MPP.test(userAgent.trim())) return 'apple_mpp';
  return null;
}
