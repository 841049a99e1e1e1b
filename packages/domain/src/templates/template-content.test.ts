import { HTML_MAX_BYTES, PLAIN_MAX_BYTES } from '../emails/email-limits';
import { compileTemplate, renderTemplate, TEMPLATE_RENDER_STEPS, type TemplateContent } from './template-content';

const compiled = (content: Partial<TemplateContent>) => {
  const result = compileTemplate({ subject: 'Hello', html: null, text: null, ...content });
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.compiled;
};
const render = (content: Partial<TemplateContent>, variables: Record<string, unknown>) => renderTemplate(compiled(content), variables);
const rendered = (content: Partial<TemplateContent>, variables: Record<string, unknown>) => {
  const result = render(content, variables);
  if (!result.ok) throw new Error(JSON.stringify(result));
  return result.rendered;
};

describe('compileTemplate', () => {
  it('lists the variables of every part', () => {
    expect(compiled({ subject: 'Hi {{name}}', html: '<p>{{#items}}{{sku}}{{/items}}</p>', text: '{{name}} {{footer.note}}' }).variables).toEqual([
      'name',
      'items',
      'sku',
      'footer.note',
    ]);
  });

  it('reports each part that does not parse with its line and column, and the rules of a message', () => {
    const result = compileTemplate({ subject: 'Hi {{name', html: '<p>\n{{#a}}', text: null });
    expect(result).toEqual({
      ok: false,
      problems: [
        { part: 'subject', message: 'does not parse at line 1, column 4: Unclosed tag' },
        { part: 'html', message: 'does not parse at line 2, column 1: Unclosed section "a"' },
      ],
    });
    expect(compileTemplate({ subject: 'a\nb', html: null, text: null })).toEqual({
      ok: false,
      problems: [
        { part: 'subject', message: 'must not contain CR, LF or NUL (header injection)' },
        { message: 'needs html or text with non-whitespace text' },
      ],
    });
    expect(compileTemplate({ subject: 'x', html: 'a'.repeat(HTML_MAX_BYTES + 1), text: 'é'.repeat(PLAIN_MAX_BYTES / 2 + 1) })).toMatchObject({
      ok: false,
      problems: [{ part: 'text' }, { part: 'html' }],
    });
  });
});

describe('renderTemplate', () => {
  it('escapes {{x}} for HTML in the html part only; {{{x}}} and {{&x}} never', () => {
    const variables = { name: '<Ann & "Bob">' };
    expect(rendered({ subject: 'For {{name}}', html: '<p>{{name}} {{{name}}} {{&name}}</p>', text: '{{name}}' }, variables)).toEqual({
      subject: 'For <Ann & "Bob">',
      html: '<p>&lt;Ann &amp; &quot;Bob&quot;&gt; <Ann & "Bob"> <Ann & "Bob"></p>',
      text: '<Ann & "Bob">',
    });
  });

  it('walks dotted names, sections over arrays, objects and truthy values, and inverted sections', () => {
    const html = '{{user.name}}:{{#items}}[{{sku}}x{{qty}} by {{user.name}}]{{/items}}{{^items}}none{{/items}}{{#user}}<{{name}}>{{/user}}{{#vip}}*{{/vip}}{{#list}}{{.}},{{/list}}';
    expect(rendered({ html }, { user: { name: 'Ann' }, items: [{ sku: 'A', qty: 2 }, { sku: 'B', qty: 1 }], vip: true, list: [1, 2] }).html).toBe(
      'Ann:[Ax2 by Ann][Bx1 by Ann]<Ann>*1,2,',
    );
    expect(rendered({ html }, { user: { name: 'Ann' }, items: [], vip: false, list: [] }).html).toBe('Ann:none<Ann>');
    expect(rendered({ text: '{{n}} {{z}} {{nothing}} {{#zero}}x{{/zero}}{{^blank}}empty{{/blank}}' }, { n: 3.5, z: 0, nothing: null, zero: 0, blank: '' }).text).toBe(
      '3.5 0  empty',
    );
  });

  it('reports the first name the variables lack, also inside a section, but not in a section never entered', () => {
    expect(render({ subject: 'Hi {{name}}', text: '{{other}}' }, {})).toEqual({ ok: false, missing: 'name' });
    expect(render({ html: '{{#items}}{{sku}}{{/items}}' }, { items: [{ sku: 'A' }, {}] })).toEqual({ ok: false, missing: 'sku' });
    expect(render({ html: '{{#items}}{{sku}}{{/items}}x' }, { items: [] })).toMatchObject({ ok: true });
    expect(render({ html: '{{user.name}}' }, { user: {} })).toEqual({ ok: false, missing: 'user.name' });
    expect(render({ html: '{{#items}}{{/items}}' }, {})).toEqual({ ok: false, missing: 'items' });
  });

  it('resolves own properties only: nothing of the prototype is reachable', () => {
    expect(render({ html: '{{x.constructor}}' }, { x: {} })).toEqual({ ok: false, missing: 'x.constructor' });
    expect(render({ html: '{{#toString}}x{{/toString}}' }, {})).toEqual({ ok: false, missing: 'toString' });
    expect(rendered({ html: '{{items.length}}' }, { items: [1, 2, 3] }).html).toBe('3');
  });

  it('holds the rendered message to the rules of any message', () => {
    expect(render({ subject: '{{s}}', text: 'x' }, { s: 'a\r\nBcc: eve@example.com' })).toEqual({
      ok: false,
      problems: [{ part: 'subject', message: 'the rendered subject must not contain CR, LF or NUL (header injection)' }],
    });
    expect(render({ subject: '{{s}}', text: 'x' }, { s: '  ' })).toMatchObject({ ok: false, problems: [{ part: 'subject' }] });
    expect(render({ text: '{{t}}' }, { t: ' ' })).toEqual({ ok: false, problems: [{ message: 'the template renders to no html or text with non-whitespace text' }] });
    expect(rendered({ html: '<p>x</p>', text: '{{t}}' }, { t: ' ' })).toEqual({ subject: 'Hello', html: '<p>x</p>', text: null });
  });

  it('stops at the output bound, not after building a huge output', () => {
    const big = 'x'.repeat(64 * 1024);
    expect(render({ html: '{{#a}}{{#a}}{{{big}}}{{/a}}{{/a}}' }, { a: Array(1000).fill(1), big })).toEqual({
      ok: false,
      problems: [{ part: 'html', message: `the rendered html would have more than ${HTML_MAX_BYTES} bytes` }],
    });
    expect(render({ text: '{{#a}}{{b}}{{/a}}' }, { a: Array(PLAIN_MAX_BYTES + 1).fill(1), b: 'x' })).toMatchObject({ ok: false, problems: [{ part: 'text' }] });
    expect(render({ subject: '{{#a}}{{b}}{{/a}}', text: 'x' }, { a: Array(5000).fill(1), b: 'x' })).toMatchObject({ ok: false, problems: [{ part: 'subject' }] });
  });

  it('stops at the work bound when sections over large arrays nest, even with no output', () => {
    const a = Array(2000).fill(0);
    expect(render({ html: '<p>x</p>', text: '{{#a}}{{#a}}{{#a}}{{/a}}{{/a}}{{/a}}' }, { a: a.map(() => a) })).toEqual({
      ok: false,
      problems: [{ message: `the template takes more than ${TEMPLATE_RENDER_STEPS} steps to render with these variables` }],
    });
  });
});
