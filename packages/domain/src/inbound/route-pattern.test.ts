import { isSubdomainOf, parseRoutePattern, receivingHost, routeKey } from './route-pattern';

describe('parseRoutePattern', () => {
  it.each([
    ['Support@Example.COM', { pattern: 'support@example.com', localPart: 'support', host: 'example.com' }],
    [' *@In.Example.com ', { pattern: '*@in.example.com', localPart: null, host: 'in.example.com' }],
    ['*@bücher.de', { pattern: '*@xn--bcher-kva.de', localPart: null, host: 'xn--bcher-kva.de' }],
    // Only a lone `*` is every address: `a*` is an ordinary local part.
    ['a*@example.com', { pattern: 'a*@example.com', localPart: 'a*', host: 'example.com' }],
  ])('reads %s', (input, expected) => {
    expect(parseRoutePattern(input)).toEqual(expected);
  });

  it.each(['support', '*@', '*', '@example.com', 'a@localhost', '*@not a host'])('refuses %s', (input) => {
    expect(parseRoutePattern(input)).toBeUndefined();
  });
});

describe('routes and hosts', () => {
  it('splits a recipient as routes are matched', () => {
    expect(routeKey('Support@EXAMPLE.com')).toEqual({ localPart: 'support', host: 'example.com' });
    expect(routeKey('not an address')).toBeUndefined();
  });

  it('receives at the subdomain when one is set, else at the domain', () => {
    expect(receivingHost({ name: 'example.com', receivingSubdomain: null })).toBe('example.com');
    expect(receivingHost({ name: 'example.com', receivingSubdomain: 'in.example.com' })).toBe('in.example.com');
    expect(isSubdomainOf('in.example.com', 'example.com')).toBe(true);
    expect(isSubdomainOf('example.com', 'example.com')).toBe(false);
    expect(isSubdomainOf('inexample.com', 'example.com')).toBe(false);
  });
});
