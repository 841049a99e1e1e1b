import { isOperatorAuthorized } from './operator-token';

const token = 'operator-token-0123456789';

describe('isOperatorAuthorized', () => {
  it('accepts the token as Bearer or as the Basic password', () => {
    expect(isOperatorAuthorized(`Bearer ${token}`, token)).toBe(true);
    expect(isOperatorAuthorized(`Basic ${Buffer.from(`ops:${token}`).toString('base64')}`, token)).toBe(true);
  });

  it('refuses a wrong, missing or unconfigured token', () => {
    expect(isOperatorAuthorized('Bearer nope', token)).toBe(false);
    expect(isOperatorAuthorized(`Basic ${Buffer.from('ops:nope').toString('base64')}`, token)).toBe(false);
    expect(isOperatorAuthorized(undefined, token)).toBe(false);
    expect(isOperatorAuthorized(`Bearer ${token}`, undefined)).toBe(false);
    expect(isOperatorAuthorized(`Token ${token}`, token)).toBe(false);
  });

  it('refuses a header with anything after the credential, and malformed Basic credentials', () => {
    const basic = Buffer.from(`ops:${token}`).toString('base64');
    expect(isOperatorAuthorized(`Bearer ${token} junk`, token)).toBe(false);
    expect(isOperatorAuthorized(`Bearer ${token}\tjunk`, token)).toBe(false);
    expect(isOperatorAuthorized(`Basic ${basic} junk`, token)).toBe(false);
    expect(isOperatorAuthorized(`Basic ${basic}!`, token)).toBe(false);
    // Basic is `user:password`: the token alone, without a colon, is no password.
    expect(isOperatorAuthorized(`Basic ${Buffer.from(token).toString('base64')}`, token)).toBe(false);
    expect(isOperatorAuthorized(`  bearer  ${token}  `, token)).toBe(true);
  });
});
