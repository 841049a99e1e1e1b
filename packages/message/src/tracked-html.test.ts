import { trackedLinks, trackHtml } from './tracked-html';

const linkUrl = (index: number) => `https://track.shop.test/c/${index}`;

describe('the tracked links of an HTML part', () => {
  it('are the http(s) hrefs of a and area elements, entities decoded, in document order, duplicates included', () => {
    const html =
      '<p><a href="https://shop.test/a?x=1&amp;y=2">A</a> <A HREF=\'HTTP://shop.test/b\'>B</A> <a href=https://shop.test/c>C</a>' +
      '<map><area href=" https://shop.test/d "></map><a href="https://shop.test/a?x=1&amp;y=2">again</a></p>';
    expect(trackedLinks(html)).toEqual(['https://shop.test/a?x=1&y=2', 'HTTP://shop.test/b', 'https://shop.test/c', 'https://shop.test/d', 'https://shop.test/a?x=1&y=2']);
  });

  it('leave mailto:, tel:, fragments, relative links, other elements and a second href alone', () => {
    const html =
      '<a href="mailto:help@shop.test">m</a><a href="tel:+1">t</a><a href="#top">f</a><a href="/rel">r</a>' +
      '<link href="https://shop.test/style.css"><img src="https://shop.test/i.png"><a href="/x" href="https://shop.test/second">s</a>' +
      '<!-- <a href="https://shop.test/comment"> --><a href="javascript:alert(1)">j</a>';
    expect(trackedLinks(html)).toEqual([]);
    expect(trackHtml(html, { linkUrl })).toBe(html);
  });
});

describe('a tracked copy of an HTML part', () => {
  it('replaces each tracked href and keeps every other byte', () => {
    const html = '<html><body><a class="x" href="https://shop.test/a?x=1&amp;y=2" id=1>A</a> <a href=https://shop.test/b>B</a> <a href="mailto:a@shop.test">m</a></body></html>';
    expect(trackHtml(html, { linkUrl })).toBe(
      '<html><body><a class="x" href="https://track.shop.test/c/0" id=1>A</a> <a href="https://track.shop.test/c/1">B</a> <a href="mailto:a@shop.test">m</a></body></html>',
    );
  });

  it('appends the 1x1 pixel at the end', () => {
    expect(trackHtml('<p>Hi</p>', { pixelUrl: 'https://track.shop.test/o/tok' })).toBe('<p>Hi</p><img src="https://track.shop.test/o/tok" width="1" height="1" alt="">');
    expect(trackHtml('<p>Hi</p>', {})).toBe('<p>Hi</p>');
  });

  it('is read back by the same function: the n-th link of the copy is the n-th original', () => {
    const html = '<a href="https://a.test/1">1</a><a href="https://a.test/2">2</a><a href="https://a.test/1">1</a>';
    const copy = trackHtml(html, { linkUrl });
    expect(trackedLinks(copy)).toEqual([0, 1, 2].map(linkUrl));
    expect(trackedLinks(html)[2]).toBe('https://a.test/1');
  });
});
