import { type ClusterReader, isItemError } from "@/lib/kafka";
import { alignPartitionLedger, applyLedgerRead, createPartitionLedger, type LedgerPartitionState, type PartitionLedger, pruneLedger, viewLedger } from "./transaction-ledger";
import { readPartitionFields } from "./partition-fields";
import { type ClusterSnapshot, type Flow, ledgerKey, type TransactionLedgerView } from "./types";

/**
 * Bytes read per ledger partition and cycle. Kafka returns a batch larger than this only for the
 * first partition of a response (KIP-74); elsewhere it is cut off and nothing comes back, so such
 * a partition is put first in the next cycle's request (`stuck`). 256 KiB is 16 default-size
 * producer batches (batch.size 16 KiB): an idle-then-busy transactional partition catches up fast.
 */
export const ledgerBytesPerPartition = 256 * 1024;

/**
 * Advances the transaction ledgers by ONE group-less read_committed Fetch per leader broker of each
 * source cluster, for the partitions that need it: source partitions of a flow where transaction
 * markers were seen (`transactionMarkersSeen`) whose ledger cursor is below the log end. A
 * partition whose cluster or offsets are unknown this cycle is neither read nor pruned. Mutates
 * `ledgers` (the collector's state, persisted by the caller); returns the views for the snapshot.
 */
export async function advanceTransactionLedgers(
  ledgers: Map<string, PartitionLedger>,
  flows: readonly Flow[],
  clusters: ReadonlyMap<string, ClusterSnapshot>,
  readers: ReadonlyMap<string, ClusterReader>,
  now: number,
): Promise<{ views: Record<string, TransactionLedgerView>; errors: string[] }> {
  const { states, gone } = collectPartitionStates(ledgers, flows, clusters);
  for (const key of gone) ledgers.delete(key);
  for (const [key, { cluster, topic, partition, state }] of states) {
    const ledger = ledgers.get(key);
    ledgers.set(key, ledger === undefined ? createPartitionLedger(cluster, topic, partition, state) : alignPartitionLedger(ledger, state));
  }
  const errors = await readLedgers(ledgers, states, readers);
  // Only the partitions with a state are pruned: without any, no flow's partitions are read.
  const positions = states.size === 0 ? new Map<string, bigint>() : lowestPositions(flows);
  for (const [key, { state }] of states) {
    const ledger = ledgers.get(key)!;
    ledgers.set(key, pruneLedger(ledger, state.logStart, positions.has(key) ? positions.get(key)! : null, now));
  }
  return { views: Object.fromEntries([...ledgers].map(([key, ledger]) => [key, viewLedger(ledger)])), errors };
}

interface PartitionRef {
  cluster: string;
  topic: string;
  partition: number;
  state: LedgerPartitionState;
}

/**
 * Source partitions that have or need a ledger and whose offsets were read this cycle, and the
 * ledgers whose partition no longer exists on a cluster that answered (topic deleted).
 */
function collectPartitionStates(
  ledgers: ReadonlyMap<string, PartitionLedger>,
  flows: readonly Flow[],
  clusters: ReadonlyMap<string, ClusterSnapshot>,
): { states: Map<string, PartitionRef>; gone: string[] } {
  const wanted = new Map<string, { cluster: string; topic: string; partition: number }>();
  for (const flow of flows) {
    const fields = readPartitionFields(flow);
    for (let i = 0; i < fields.count; i++) {
      if (!fields.transactionMarkersSeen(i)) continue;
      const topic = fields.topic(i);
      const partition = fields.partition(i);
      wanted.set(ledgerKey(flow.source, topic, partition), { cluster: flow.source, topic, partition });
    }
  }
  for (const [key, l] of ledgers) wanted.set(key, { cluster: l.cluster, topic: l.topic, partition: l.partition });
  const states = new Map<string, PartitionRef>();
  const gone: string[] = [];
  for (const [key, ref] of wanted) {
    const cluster = clusters.get(ref.cluster);
    if (cluster === undefined || !cluster.reachable || cluster.stale) continue;
    const topic = cluster.topics.find((t) => t.name === ref.topic);
    const p = topic?.partitions.find((x) => x.partition === ref.partition);
    if (p === undefined) gone.push(key);
    else if (p.logStart !== null && p.logEnd !== null) {
      states.set(key, { ...ref, state: { topicId: topic!.topicId, logStart: p.logStart, logEnd: p.logEnd } });
    }
  }
  return { states, gone };
}

/** One fetchPartitions per source cluster (one Fetch per leader broker): stuck partitions first. */
async function readLedgers(
  ledgers: Map<string, PartitionLedger>,
  states: ReadonlyMap<string, PartitionRef>,
  readers: ReadonlyMap<string, ClusterReader>,
): Promise<string[]> {
  const byCluster = new Map<string, PartitionLedger[]>();
  for (const key of states.keys()) {
    const ledger = ledgers.get(key)!;
    if (ledger.cursor < ledger.logEnd) byCluster.set(ledger.cluster, [...(byCluster.get(ledger.cluster) ?? []), ledger]);
  }
  const errors: string[] = [];
  for (const [cluster, list] of byCluster) {
    const reader = readers.get(cluster);
    if (reader === undefined) continue;
    const ordered = [...list.filter((l) => l.stuck), ...list.filter((l) => !l.stuck)];
    try {
      const items = ordered.map((l) => ({ topic: l.topic, partition: l.partition, offset: l.cursor }));
      const fetched = await reader.fetchPartitions(items, { maxBytes: ledgerBytesPerPartition, maxWaitMs: 0, readCommitted: true });
      for (const l of ordered) {
        const result = fetched.get(`${l.topic}/${l.partition}`);
        const where = `transaction ledger of ${cluster} ${l.topic}/${l.partition}`;
        if (result === undefined || isItemError(result)) errors.push(`${where}: ${result?.error ?? "not read"}`);
        else if (result.transactions !== undefined) ledgers.set(ledgerKey(cluster, l.topic, l.partition), applyLedgerRead(l, result.transactions));
      }
    } catch (err) {
      errors.push(`transaction ledger of ${cluster}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return errors;
}

/** Per ledger key, MM2's lowest position over the flows copying the partition; absent when any is unknown. */
function lowestPositions(flows: readonly Flow[]): Map<string, bigint> {
  const lowest = new Map<string, bigint | null>();
  for (const flow of flows) {
    const fields = readPartitionFields(flow);
    for (let i = 0; i < fields.count; i++) {
      const key = ledgerKey(flow.source, fields.topic(i), fields.partition(i));
      const position = fields.isKnown(i) ? fields.offset(i, "mm2Position") : null;
      const before = lowest.get(key);
      lowest.set(key, before === undefined ? position : before === null || position === null ? null : before < position ? before : position);
    }
  }
  return new Map([...lowest].filter((e): e is [string, bigint] => e[1] !== null));
}
