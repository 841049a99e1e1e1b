import { createHash } from 'node:crypto';
import { daneAuthenticates, usableTlsaRecords, type PresentedCertificate, type TlsaRecord } from './dane';

const cert = (name: string): PresentedCertificate => ({ der: Buffer.from(`der of ${name}`), spki: Buffer.from(`spki of ${name}`) });
const leaf = cert('leaf');
const ca = cert('ca');
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest();
const sha512 = (b: Buffer) => createHash('sha512').update(b).digest();
const record = (usage: number, selector: number, matchingType: number, data: Buffer): TlsaRecord => ({ usage, selector, matchingType, data });

describe('usableTlsaRecords', () => {
  it('keeps usages 2 and 3 with selectors 0/1 and matching types 0/1/2', () => {
    const kept = [record(3, 1, 1, Buffer.alloc(32)), record(2, 0, 0, Buffer.alloc(3)), record(3, 0, 2, Buffer.alloc(64))];
    const dropped = [record(0, 0, 1, Buffer.alloc(32)), record(1, 1, 1, Buffer.alloc(32)), record(3, 2, 1, Buffer.alloc(32)), record(3, 1, 3, Buffer.alloc(32))];
    expect(usableTlsaRecords([...kept, ...dropped])).toEqual(kept);
  });
});

describe('daneAuthenticates', () => {
  it.each([
    ['3 1 1 (SPKI SHA-256)', record(3, 1, 1, sha256(leaf.spki))],
    ['3 0 1 (certificate SHA-256)', record(3, 0, 1, sha256(leaf.der))],
    ['3 1 2 (SPKI SHA-512)', record(3, 1, 2, sha512(leaf.spki))],
    ['3 0 0 (full certificate)', record(3, 0, 0, leaf.der)],
  ])('DANE-EE %s matches the leaf whatever its name', (_label, r) => {
    expect(daneAuthenticates([r], { leaf, issuers: [], leafNameValid: false })).toBe(true);
  });

  it('DANE-EE does not match another leaf', () => {
    expect(daneAuthenticates([record(3, 1, 1, sha256(ca.spki))], { leaf, issuers: [ca], leafNameValid: true })).toBe(false);
  });

  it('DANE-TA matches an issuer, and only for a leaf valid for the MX name', () => {
    const ta = [record(2, 0, 1, sha256(ca.der))];
    expect(daneAuthenticates(ta, { leaf, issuers: [ca], leafNameValid: true })).toBe(true);
    expect(daneAuthenticates(ta, { leaf, issuers: [ca], leafNameValid: false })).toBe(false);
    expect(daneAuthenticates(ta, { leaf, issuers: [], leafNameValid: true })).toBe(false);
  });

  it('ignores unusable records', () => {
    expect(daneAuthenticates([record(1, 1, 1, sha256(leaf.spki))], { leaf, issuers: [], leafNameValid: true })).toBe(false);
  });
});
