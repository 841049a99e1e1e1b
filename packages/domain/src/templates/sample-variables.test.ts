import { compileTemplate, renderTemplate } from './template-content';
import { sampleVariables } from './sample-variables';

describe('sampleVariables', () => {
  it('gives every name a placeholder, dotted names as nested objects', () => {
    expect(sampleVariables(['name', 'order.number', 'order.total', 'items', 'title'])).toEqual({
      name: '‹name›',
      order: { number: '‹order.number›', total: '‹order.total›' },
      items: '‹items›',
      title: '‹title›',
    });
  });

  it('renders any template that parses, each section once', () => {
    const compiled = compileTemplate({ subject: 'Order {{order.number}}', html: '{{#items}}<li>{{title}}</li>{{/items}}{{^items}}none{{/items}}', text: null });
    if (!compiled.ok) throw new Error('compiles');
    expect(renderTemplate(compiled.compiled, sampleVariables(compiled.compiled.variables))).toEqual({
      ok: true,
      rendered: { subject: 'Order ‹order.number›', html: '<li>‹title›</li>', text: null },
    });
  });
});
