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
  let byTopic = keysByFlow.get(flowId);
  if (byTopic === undefined) keysByFlow.set(flowId, (byTopic = new Map()));
  let keys = byTopic.get(topic);
  if (keys === undefined) byTopic.set(topic, (keys = []));
  let key = keys[partition];
  if (key === undefined) {
    key = `${flowId}|${topic}|${partition}`;
    keys[partition] = key;
    countInterned();
  }
  return key;
}

/** `<topic>/<partition>`: how MM2's positions and the target-density issues name a source partition. */
export function internPartitionName(topic: string, partition: number): string {
  if (!isInternable(partition)) return `${topic}/${partition}`;
  let names = namesByTopic.get(topic);
  if (names === undefined) namesByTopic.set(topic, (names = []));
  let name = names[partition];
  if (name === undefined) {
    name = `${topic}/${partition}`;
    names[partition] = name;
    countInterned();
  }
  return name;
}

/**
 * `<prefix><topic>|<partition>` with a prefix the caller builds once for many partitions (the checkpoint
 * watch's `<flow>|<group>|`): one string per group partition, the same in every cycle.
 */
export function internPrefixedPartitionKey(prefix: string, topic: string, partition: number): string {
  if (!isInternable(partition)) return `${prefix}${topic}|${partition}`;
  let byTopic = keysByPrefix.get(prefix);
  if (byTopic === undefined) keysByPrefix.set(prefix, (byTopic = new Map()));
  let keys = byTopic.get(topic);
  if (keys === undefined) byTopic.set(topic, (keys = []));
  let key = keys[partition];
  if (key === undefined) {
    key = `${prefix}${topic}|${partition}`;
    keys[partition] = key;
    countInterned();
  }
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
