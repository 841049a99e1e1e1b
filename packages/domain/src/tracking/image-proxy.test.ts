import { detectImageProxy } from './image-proxy';

describe('the image proxy of an open', () => {
  it("is Gmail's for its GoogleImageProxy user agent", () => {
    expect(detectImageProxy('Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)')).toBe('gmail');
  });

  it("is Apple Mail Privacy Protection's for the bare WebKit user agent of its prefetch", () => {
    expect(detectImageProxy('Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko)')).toBe('apple_mpp');
  });

  it('is none for mail clients and browsers, Safari and Apple Mail on iOS included, and for no user agent', () => {
    for (const agent of [
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Safari/605.1.15',
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148',
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
      'Microsoft Office/16.0 (Windows NT 10.0; Microsoft Outlook 16.0.17029; Pro)',
    ]) {
      expect(detectImageProxy(agent)).toBeNull();
    }
    expect(detectImageProxy(undefined)).toBeNull();
    expect(detectImageProxy('')).toBeNull();
  });
});
