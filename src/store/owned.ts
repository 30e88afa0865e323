/**
 * Lookups go by _id alone, ownership checked here: a filter of _id plus other fields is a full scan on the local
 * MongoDB-wire server (FerretDB pushes down only a bare _id), while the answer is the same on any server.
 */
export const ownedBy = <T extends { integratorId: string }>(integratorId: string, doc: T | null): T | null =>
  doc?.integratorId === integratorId ? doc : null;
