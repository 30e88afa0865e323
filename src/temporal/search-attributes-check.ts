import type { Connection } from '@temporalio/client';
import { searchAttributes } from '../../workflows/search-attributes.js';

/** temporal.api.enums.v1.IndexedValueType values of the two types Herald uses. */
const indexedValueType = { KEYWORD: 2, INT: 3 } as const;

/** Herald's search attributes that `registered` (name → IndexedValueType) lacks or types differently. */
export function missingSearchAttributes(registered: Readonly<Record<string, number>>): string[] {
  return Object.values(searchAttributes)
    .filter((key) => registered[key.name] !== indexedValueType[key.type as keyof typeof indexedValueType])
    .map((key) => `${key.name} (${key.type === 'INT' ? 'Int' : 'Keyword'})`);
}

/**
 * Fails fast, with the commands that fix it, when the namespace lacks Herald's search attributes: otherwise every
 * delivery start would fail later, one request at a time.
 */
export async function assertSearchAttributes(connection: Connection, namespace: string): Promise<void> {
  const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
  const missing = missingSearchAttributes((customAttributes ?? {}) as Record<string, number>);
  if (missing.length === 0) return;
  const commands = missing.map((m) => {
    const [name, type] = m.replace(')', '').split(' (');
    return `  temporal operator search-attribute create --namespace ${namespace} --name ${name} --type ${type}`;
  });
  throw new Error(`Temporal namespace ${namespace} lacks Herald's search attributes:\n${commands.join('\n')}`);
}
