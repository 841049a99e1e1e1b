import { generateDkimKeyPair } from './dkim-key';

describe('generateDkimKeyPair', () => {
  it('makes the key off the event loop: the loop turns while a key is made', async () => {
    let settled = false;
    const made = generateDkimKeyPair().then((key) => {
      settled = true;
      return key;
    });
    // Made on the event loop, the key would be there before this turn of it.
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    const key = await made;
    expect(key.selector).toMatch(/^mlr[0-9a-z]{8}$/);
    expect(key.privateKeyPem).toContain('BEGIN PRIVATE KEY');
  });
});
