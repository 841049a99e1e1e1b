import { dkimRecordMatches } from './dkim-record';

const KEY = 'MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA' + 'x'.repeat(300);

describe('dkimRecordMatches', () => {
  it('accepts our record in any tag order, with folded whitespace or split strings', () => {
    expect(dkimRecordMatches(`v=DKIM1; k=rsa; p=${KEY}`, KEY)).toBe(true);
    expect(dkimRecordMatches(`p=${KEY}; k=rsa; v=DKIM1`, KEY)).toBe(true);
    expect(dkimRecordMatches(`p=${KEY}`, KEY)).toBe(true);
    expect(dkimRecordMatches(`v=DKIM1;k=rsa;p=${KEY.slice(0, 100)} ${KEY.slice(100)}`, KEY)).toBe(true);
    expect(dkimRecordMatches(`"v=DKIM1; k=rsa; p=${KEY.slice(0, 200)}" "${KEY.slice(200)}"`, KEY)).toBe(true);
  });

  it('refuses another key, another key type, another version or garbage', () => {
    expect(dkimRecordMatches(`v=DKIM1; k=rsa; p=${KEY}A`, KEY)).toBe(false);
    expect(dkimRecordMatches(`v=DKIM1; k=ed25519; p=${KEY}`, KEY)).toBe(false);
    expect(dkimRecordMatches(`v=DKIM2; p=${KEY}`, KEY)).toBe(false);
    expect(dkimRecordMatches('v=DKIM1; k=rsa; p=', KEY)).toBe(false);
    expect(dkimRecordMatches('hello world', KEY)).toBe(false);
  });
});

describe('dkimRecordMatches for Ed25519', () => {
  const ED = '11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=';

  it('accepts the RFC 8463 record, which must say k=ed25519', () => {
    expect(dkimRecordMatches(`v=DKIM1; k=ed25519; p=${ED}`, ED, 'ed25519')).toBe(true);
    expect(dkimRecordMatches(`k=ED25519;p=${ED}`, ED, 'ed25519')).toBe(true);
  });

  it('refuses the key without k=ed25519, or another key', () => {
    expect(dkimRecordMatches(`v=DKIM1; p=${ED}`, ED, 'ed25519')).toBe(false);
    expect(dkimRecordMatches(`v=DKIM1; k=rsa; p=${ED}`, ED, 'ed25519')).toBe(false);
    expect(dkimRecordMatches(`v=DKIM1; k=ed25519; p=${KEY}`, ED, 'ed25519')).toBe(false);
  });
});
