// Herald's footprint in a Temporal namespace: the custom search attributes its workflows set
// (workflows/search-attributes.ts) and the namespace's retention. The worker's start-up check and `herald temporal
// check|setup` read and write them through the operator API, so one code path serves the dev server, a self-hosted
// cluster and Temporal Cloud (docs/temporal-cluster.md).
import type { Connection } from '@temporalio/client';
import { searchAttributes } from '../../workflows/search-attributes.js';

/** temporal.api.enums.v1.IndexedValueType, by number: what a namespace answers, and the two Herald needs. */
const TYPE_NAMES: Readonly<Record<number, string>> = {
  1: 'Text',
  2: 'Keyword',
  3: 'Int',
  4: 'Double',
  5: 'Bool',
  6: 'Datetime',
  7: 'KeywordList',
};
const indexedValueType = { KEYWORD: 2, INT: 3 } as const;

/** Herald's search attributes as the operator API takes them: name → IndexedValueType. */
export const heraldSearchAttributeTypes: Readonly<Record<string, number>> = Object.fromEntries(
  Object.values(searchAttributes).map((key) => [key.name, indexedValueType[key.type as keyof typeof indexedValueType]]),
);

/** Seven days: enough to inspect a finished delivery after an incident, and the wait before removing a patch. */
export const RECOMMENDED_RETENTION_SECONDS = 7 * 24 * 3600;

export interface SearchAttributeState {
  /** Registered with the type Herald needs. */
  readonly present: string[];
  /** Not registered: `Name (Type)`. */
  readonly missing: string[];
  /** Registered with another type, which Temporal cannot change in place: `Name is X, Herald needs Y`. */
  readonly conflicting: string[];
}

const typeName = (type: number | undefined): string => TYPE_NAMES[type ?? 0] ?? `type ${type}`;

/** Compares what a namespace has registered (name → IndexedValueType) with what Herald needs. */
export function compareSearchAttributes(registered: Readonly<Record<string, number>>): SearchAttributeState {
  const state = { present: [] as string[], missing: [] as string[], conflicting: [] as string[] };
  for (const [name, type] of Object.entries(heraldSearchAttributeTypes)) {
    const has = registered[name];
    if (has === type) state.present.push(name);
    else if (has === undefined) state.missing.push(`${name} (${typeName(type)})`);
    else state.conflicting.push(`${name} is ${typeName(has)}, Herald needs ${typeName(type)}`);
  }
  return state;
}

/** The names of `state`'s missing attributes (its entries read `Name (Type)`). */
const missingNames = (state: SearchAttributeState): string[] => state.missing.map((m) => m.slice(0, m.indexOf(' ')));

/**
 * Runs an operator call with the `temporal-namespace` header, by which Temporal Cloud's regional API-key endpoint
 * finds the namespace: the SDK adds it to workflow-service calls only.
 */
const inNamespace = <T>(connection: Connection, namespace: string, call: () => Promise<T>): Promise<T> =>
  connection.withMetadata({ 'temporal-namespace': namespace }, call);

export async function readSearchAttributes(connection: Connection, namespace: string): Promise<SearchAttributeState> {
  const { customAttributes } = await inNamespace(connection, namespace, () =>
    connection.operatorService.listSearchAttributes({ namespace }),
  );
  return compareSearchAttributes((customAttributes ?? {}) as Record<string, number>);
}

/**
 * Registers the attributes `state` found missing, in one call. The server skips a name it already has (a concurrent
 * setup), whatever its type, so the caller reads the namespace again to see what it holds.
 */
export async function addMissingSearchAttributes(
  connection: Connection,
  namespace: string,
  state: SearchAttributeState,
): Promise<string[]> {
  const names = missingNames(state);
  if (names.length === 0) return [];
  await inNamespace(connection, namespace, () =>
    connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(names.map((name) => [name, heraldSearchAttributeTypes[name]!])),
    }),
  );
  return names;
}

/**
 * The tcld command that adds `state`'s missing attributes on Temporal Cloud, whose custom search attributes are
 * managed through its control plane (tcld, the Cloud UI, the Cloud Ops API) rather than the operator API.
 */
export function cloudSearchAttributeCommand(namespace: string, state: SearchAttributeState): string {
  const flags = missingNames(state).map((name) => `--sa "${name}=${typeName(heraldSearchAttributeTypes[name])}"`);
  return `tcld namespace search-attributes add -n ${namespace} ${flags.join(' ')}`;
}

/** Why a namespace is not ready for Herald, with the command that fixes it; null when it is. */
export function searchAttributeProblem(namespace: string, state: SearchAttributeState): string | null {
  if (state.conflicting.length > 0)
    return (
      `Temporal namespace ${namespace} has Herald's search attributes with the wrong type: ` +
      `${state.conflicting.join('; ')}. Remove them (temporal operator search-attribute remove), then run ` +
      '`herald temporal setup`'
    );
  if (state.missing.length > 0)
    return (
      `Temporal namespace ${namespace} lacks Herald's search attributes ${state.missing.join(', ')}: run ` +
      '`herald temporal setup` with the same TEMPORAL_* settings (docs/temporal-cluster.md)'
    );
  return null;
}

/**
 * Fails fast, naming the command that fixes it, when the namespace lacks Herald's search attributes: otherwise every
 * delivery start would fail later, one request at a time.
 */
export async function assertSearchAttributes(connection: Connection, namespace: string): Promise<void> {
  const problem = searchAttributeProblem(namespace, await readSearchAttributes(connection, namespace));
  if (problem) throw new Error(problem);
}
