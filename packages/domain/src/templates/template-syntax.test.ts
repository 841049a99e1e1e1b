import { lineAndColumn, parseTemplate, templateVariables, TEMPLATE_MAX_NESTING } from './template-syntax';

const problemOf = (source: string) => {
  const parsed = parseTemplate(source);
  if (parsed.ok) throw new Error('parsed');
  return parsed.problem;
};
const variablesOf = (source: string) => {
  const parsed = parseTemplate(source);
  if (!parsed.ok) throw new Error(parsed.problem.message);
  return [...templateVariables(parsed.tokens)];
};

describe('parseTemplate', () => {
  it('names the line and column of an unclosed tag, counting from 1', () => {
    expect(problemOf('Hello\n  {{name')).toEqual({ line: 2, column: 3, message: 'Unclosed tag' });
  });

  it('names the section left open, and one closed without being opened', () => {
    expect(problemOf('<ul>\n  {{# items }}\n- {{name}}\n')).toEqual({ line: 2, column: 3, message: 'Unclosed section "items"' });
    expect(problemOf('a\nb {{/items}}')).toEqual({ line: 2, column: 3, message: 'Unopened section "items"' });
    expect(problemOf('{{#a}}{{/a}} {{#a}}{{/b}}')).toEqual({ line: 1, column: 14, message: 'Unclosed section "a"' });
  });

  it('refuses partials and sections nested deeper than the bound', () => {
    expect(problemOf('x\n{{> header}}')).toEqual({ line: 2, column: 1, message: 'partials ({{>header}}) are not supported' });
    const deep = (n: number) => '{{#a}}'.repeat(n) + '{{/a}}'.repeat(n);
    expect(parseTemplate(deep(TEMPLATE_MAX_NESTING)).ok).toBe(true);
    expect(problemOf(deep(TEMPLATE_MAX_NESTING + 1)).message).toBe(`sections may be nested at most ${TEMPLATE_MAX_NESTING} deep`);
  });

  it('refuses a bad delimiter change', () => {
    expect(problemOf('{{=<% =}}')).toMatchObject({ message: 'invalid delimiters in a {{=…=}} tag' });
  });
});

describe('templateVariables', () => {
  it('lists every name once, in order of first use: dotted names whole, sections, raw and escaped alike', () => {
    expect(variablesOf('{{user.name}} {{{greeting}}} {{&sig}} {{#items}}{{.}} {{title}}{{/items}}{{^items}}none{{/items}} {{user.name}}{{! note }}')).toEqual([
      'user.name',
      'greeting',
      'sig',
      'items',
      'title',
    ]);
  });

  it('follows a delimiter change', () => {
    expect(variablesOf('{{=<% %>=}}<% a %> {{b}}')).toEqual(['a']);
  });
});

describe('lineAndColumn', () => {
  it('counts lines by LF', () => {
    expect(lineAndColumn('ab\ncd\r\nef', 0)).toEqual({ line: 1, column: 1 });
    expect(lineAndColumn('ab\ncd\r\nef', 4)).toEqual({ line: 2, column: 2 });
    expect(lineAndColumn('ab\ncd\r\nef', 7)).toEqual({ line: 3, column: 1 });
  });
});
