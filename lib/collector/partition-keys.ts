/**
 * Interned per-partition strings: the same string object for the same partition in every cycle. Maps and
 * records keyed by them (the sync history, detector memory, MM2's positions) then find an entry by identity,
 * with the hash already cached in the string, where a key concatenated per partition per cycle had to be
 * flattened, hashed and compared character by character again: at 100,000 partitions that was several
 * hundred thousand fresh keys a cycle (the 2026-12-02 profile of the cycle pipeline).
 * Deterministic: the strings are exactly what the template literals give. Bounded: past `maxInterned`
 * strings the tables start afresh (topics come and go), which changes identities, never values.
 */

/**
 * About four strings per partition (history key, position name, two groups' watch keys): 1,000,000 partitions
 * stay well below it. The strings are the ones the maps and the memory keep as keys anyway; the tables add
 * an array slot each.
 */
const maxInterned = 16_000_000;
/** Partition numbers above this are not interned (a sparse array that large would waste memory). */
const maxInternedPartition = 1_000_000;

let interned = 0;
let keysByFlow = new Map<string, Map<string, string[]>>();
let namesByTopic = new Map<string, string[]>();
let keysByPrefix = new Map<string, Map<string, string[]>>();

/** `<flowId>|<topic>|<partition>`: the key of one upstream partition of a flow (CollectorHistory maps). */
export function internFlowPartitionKey(flowId: string, topic: string, partition: number): string {
  if (!isInternable(partition)) return `${flowId}|${topic}|${partition}`;
  const keys = tableOf(tablesOf(keysByFlow, flowId), topic);
  return keys[partition] ?? remember(keys, partition, `${flowId}|${topic}|${partition}`);
}

/**
 * internFlowPartitionKey for the partitions of one topic: the flow's and the topic's tables are looked up
 * once, not per partition (buildFlow names every partition of a flow each cycle).
 */
export function createFlowPartitionKeyer(flowId: string, topic: string): (partition: number) => string {
  const keys = tableOf(tablesOf(keysByFlow, flowId), topic);
  return (partition) =>
    isInternable(partition) ? (keys[partition] ?? remember(keys, partition, `${flowId}|${topic}|${partition}`)) : `${flowId}|${topic}|${partition}`;
}

/** `<topic>/<partition>`: how MM2's positions and the target-density issues name a source partition. */
export function internPartitionName(topic: string, partition: number): string {
  if (!isInternable(partition)) return `${topic}/${partition}`;
  const names = tableOf(namesByTopic, topic);
  return names[partition] ?? remember(names, partition, `${topic}/${partition}`);
}

/** internPartitionName for the partitions of one topic, its table looked up once. */
export function createPartitionNamer(topic: string): (partition: number) => string {
  const names = tableOf(namesByTopic, topic);
  return (partition) => (isInternable(partition) ? (names[partition] ?? remember(names, partition, `${topic}/${partition}`)) : `${topic}/${partition}`);
}

/**
 * `<prefix><topic>|<partition>` with a prefix the caller builds once for many partitions (the checkpoint
 * watch's `<flow>|<group>|`): one string per group partition, the same in every cycle.
 */
export function internPrefixedPartitionKey(prefix: string, topic: string, partition: number): string {
  if (!isInternable(partition)) return `${prefix}${topic}|${partition}`;
  const keys = tableOf(tablesOf(keysByPrefix, prefix), topic);
  return keys[partition] ?? remember(keys, partition, `${prefix}${topic}|${partition}`);
}

function tablesOf(tables: Map<string, Map<string, string[]>>, owner: string): Map<string, string[]> {
  let byTopic = tables.get(owner);
  if (byTopic === undefined) tables.set(owner, (byTopic = new Map()));
  return byTopic;
}

function tableOf(tables: Map<string, string[]>, topic: string): string[] {
  let keys = tables.get(topic);
  if (keys === undefined) tables.set(topic, (keys = []));
  return keys;
}

/** Stores a new string in its table (a table dropped by a reset in between only loses it: values never change). */
function remember(keys: string[], partition: number, key: string): string {
  keys[partition] = key;
  countInterned();
  return key;
}

function isInternable(partition: number): boolean {
  return Number.isInteger(partition) && partition >= 0 && partition <= maxInternedPartition;
}

function countInterned(): void {
  if (++interned <= maxInterned) return;
  interned = 0;
  keysByFlow = new Map();
  namesByTopic = new Map();
  keysByPrefix = new Map();
}
