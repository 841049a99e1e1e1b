/** What POST /v1/domains does, given the account's active domains that share its name or external_id. */
export type DomainCreationDecision =
  | { kind: 'create' }
  /** Same name and same external_id: a natural retry, answered with the existing domain. */
  | { kind: 'natural_retry'; id: string }
  | { kind: 'name_taken' }
  | { kind: 'external_id_taken' };

export interface ActiveDomainKey {
  id: string;
  name: string;
  externalId: string | null;
}

/** When both the name and the external_id are taken by different domains, the name conflict is reported. */
export function decideDomainCreation(
  request: { name: string; externalId: string | null },
  active: readonly ActiveDomainKey[],
): DomainCreationDecision {
  const sameName = active.find((d) => d.name === request.name);
  if (sameName) {
    return request.externalId !== null && sameName.externalId === request.externalId
      ? { kind: 'natural_retry', id: sameName.id }
      : { kind: 'name_taken' };
  }
  if (request.externalId !== null && active.some((d) => d.externalId === request.externalId)) return { kind: 'external_id_taken' };
  return { kind: 'create' };
}
