import { decideDomainCreation } from './domain-creation';

const existing = [
  { id: 'dom_a', name: 'a.example', externalId: 'ext-a' },
  { id: 'dom_b', name: 'b.example', externalId: null },
];

describe('decideDomainCreation', () => {
  it('creates when neither name nor external_id is taken', () => {
    expect(decideDomainCreation({ name: 'c.example', externalId: 'ext-c' }, existing)).toEqual({ kind: 'create' });
    expect(decideDomainCreation({ name: 'c.example', externalId: null }, [])).toEqual({ kind: 'create' });
  });

  it('answers the same name with the same external_id as a natural retry', () => {
    expect(decideDomainCreation({ name: 'a.example', externalId: 'ext-a' }, existing)).toEqual({ kind: 'natural_retry', id: 'dom_a' });
  });

  it('refuses a taken name unless it is a natural retry', () => {
    expect(decideDomainCreation({ name: 'a.example', externalId: null }, existing)).toEqual({ kind: 'name_taken' });
    expect(decideDomainCreation({ name: 'a.example', externalId: 'other' }, existing)).toEqual({ kind: 'name_taken' });
    expect(decideDomainCreation({ name: 'b.example', externalId: null }, existing)).toEqual({ kind: 'name_taken' });
  });

  it('refuses an external_id held by a domain of another name', () => {
    expect(decideDomainCreation({ name: 'c.example', externalId: 'ext-a' }, existing)).toEqual({ kind: 'external_id_taken' });
  });
});
