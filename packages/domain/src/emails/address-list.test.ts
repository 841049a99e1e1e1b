import { splitAddressList } from './address-list';

describe('splitAddressList', () => {
  it('splits at commas outside quotes and angle brackets', () => {
    expect(splitAddressList('ann@example.org, Bob <bob@example.org>,"Doe, Jo" <jo@example.org>')).toEqual([
      'ann@example.org',
      'Bob <bob@example.org>',
      '"Doe, Jo" <jo@example.org>',
    ]);
  });
  it('keeps escaped quotes inside a quoted name', () => {
    expect(splitAddressList('"A \\"x, y\\" B" <a@example.org>, b@example.org')).toEqual(['"A \\"x, y\\" B" <a@example.org>', 'b@example.org']);
  });
  it('keeps empty entries for the address rules to refuse, and reads an empty list as none', () => {
    expect(splitAddressList('a@example.org,,b@example.org')).toEqual(['a@example.org', '', 'b@example.org']);
    expect(splitAddressList('  ')).toEqual([]);
  });
});
