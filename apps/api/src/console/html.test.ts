import { html } from './html';

describe('html templates', () => {
  it('escapes every interpolated text and keeps fragments as they are', () => {
    const name = `<script>alert("x")</script> & 'quotes'`;
    const page = html`<p title="${name}">${name}</p>${html`<b>${1}</b>`}${[html`<i>a</i>`, '<i>b</i>']}${null}${false}`;
    expect(page.text).toBe(
      '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quotes&#39;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quotes&#39;</p>' +
        '<b>1</b><i>a</i>&lt;i&gt;b&lt;/i&gt;',
    );
  });
});
