import {
  ledgerKey,
  type ClusterSnapshot,
  type Flow,
  type FlowPartition,
  type PartitionState,
  type Snapshot,
  type TransactionLedgerView,
  type UnknownData,
} from "@/lib/collector/types";
import { countAbortedBelow } from "@/lib/detect/aborted-copied";
import { formatAge, formatCount } from "@/lib/format";

/** One partition row of the topic page, shaped for the client: offsets as formatted strings. */
export interface PartitionRowView {
  partition: number;
  sourceLogStart: string;
  sourceLogEnd: string;
  mm2Position: string;
  committedPosition: string;
  positionSource: string;
  targetLogEnd: string;
  lag: string;
  /** Lag is above zero (highlighted) or unknown. */
  lagState: "zero" | "behind" | "unknown";
  /** Why this partition's data could not be read this cycle (it is not judged), or null. */
  partial: string | null;
  /** What the lag figure leaves out or overstates (transaction markers), short and in full; or null. */
  lagNote: RowNote | null;
  /** Why MM2's position is Connect's committed one (the target is not dense), or null. */
  positionNote: RowNote | null;
  /** What the transaction ledger knows (aborted records, how far it read), or null without one. */
  transactionNote: RowNote | null;
  latestSync: string;
  leader: string;
  leaderEpoch: string;
  isr: string;
  replicas: string;
  underReplicated: boolean;
}

/** A muted line under a cell value, with the details for its tooltip. */
export interface RowNote {
  label: string;
  detail: string;
}

/** Per partition list (a snapshot's lists are immutable, one per cycle): topic → its partitions by number. */
const byTopicOf = new WeakMap<readonly FlowPartition[], Map<string, readonly FlowPartition[]>>();

/** The flow partitions of one upstream topic, by partition number (indexed once per cycle: 10,000 partitions). */
export function listFlowTopicPartitions(flow: Flow, topic: string): readonly FlowPartition[] {
  let byTopic = byTopicOf.get(flow.partitions);
  if (!byTopic) {
    const lists = new Map<string, FlowPartition[]>();
    for (const p of flow.partitions) {
      const list = lists.get(p.topic);
      if (list) list.push(p);
      else lists.set(p.topic, [p]);
    }
    for (const list of lists.values()) list.sort((a, b) => a.partition - b.partition);
    byTopicOf.set(flow.partitions, (byTopic = lists));
  }
  return byTopic.get(topic) ?? [];
}

/** Upstream topics of a flow, sorted. */
export function listFlowTopicNames(flow: Flow): string[] {
  return [...new Set(flow.partitions.map((p) => p.topic))].sort();
}

/** Per cluster snapshot (immutable, one per cycle): topic → its partitions' broker-side state by number. */
type TopicStates = ReadonlyMap<number, PartitionState>;
const statesOf = new WeakMap<ClusterSnapshot, Map<string, TopicStates>>();

/** One topic's broker-side partition states on the flow's source cluster (indexed once per cycle: 1,800 topics). */
function readSourceTopicStates(snapshot: Snapshot, flow: Flow, topic: string): TopicStates | undefined {
  const cluster = snapshot.clusters.find((c) => c.alias === flow.source);
  if (!cluster) return undefined;
  let byTopic = statesOf.get(cluster);
  if (!byTopic) {
    byTopic = new Map(cluster.topics.map((t) => [t.name, new Map(t.partitions.map((p) => [p.partition, p]))]));
    statesOf.set(cluster, byTopic);
  }
  return byTopic.get(topic);
}

/** The source cluster's broker-side state of a partition (leader, epoch, replicas, ISR), if read. */
export function findSourcePartitionState(snapshot: Snapshot, flow: Flow, topic: string, partition: number): PartitionState | null {
  return readSourceTopicStates(snapshot, flow, topic)?.get(partition) ?? null;
}

/**
 * Per snapshot, per flow: the rows of each topic asked for. Every viewer of a topic in one cycle gets the same
 * rows (they depend on nothing else), so a cycle formats a topic's rows once, not once per request.
 */
const rowsOf = new WeakMap<Snapshot, WeakMap<Flow, Map<string, readonly PartitionRowView[]>>>();

/** Rows of the topic page's partition table (shared by the cycle's requests: do not mutate). */
export function shapePartitionRows(snapshot: Snapshot, flow: Flow, topic: string): readonly PartitionRowView[] {
  let byFlow = rowsOf.get(snapshot);
  if (!byFlow) rowsOf.set(snapshot, (byFlow = new WeakMap()));
  let byTopic = byFlow.get(flow);
  if (!byTopic) byFlow.set(flow, (byTopic = new Map()));
  let rows = byTopic.get(topic);
  if (!rows) byTopic.set(topic, (rows = buildPartitionRows(snapshot, flow, topic)));
  return rows;
}

function buildPartitionRows(snapshot: Snapshot, flow: Flow, topic: string): PartitionRowView[] {
  const states = readSourceTopicStates(snapshot, flow, topic);
  return listFlowTopicPartitions(flow, topic).map((p) => {
    const state = states?.get(p.partition) ?? null;
    return {
      partition: p.partition,
      sourceLogStart: formatCount(p.sourceLogStart),
      sourceLogEnd: formatCount(p.sourceLogEnd),
      mm2Position: formatCount(p.mm2Position),
      committedPosition: formatCount(p.committedPosition),
      positionSource: p.positionSource ?? "unknown",
      targetLogEnd: formatCount(p.targetLogEnd),
      lag: formatCount(p.lag),
      lagState: p.lag === null ? "unknown" : p.lag > 0n ? "behind" : "zero",
      partial: p.unknown === null ? null : describeUnknown(p.unknown, snapshot.takenAt),
      lagNote: describeLagBasis(p),
      positionNote: p.targetDensityIssue === null ? null : { label: "target not dense", detail: describeDensityIssue(p.targetDensityIssue) },
      transactionNote: describeTransactionLedger(snapshot.transactionLedgers?.[ledgerKey(flow.source, p.topic, p.partition)], p.mm2Position),
      latestSync: p.latestSync ? `${formatCount(p.latestSync.upstream)} → ${formatCount(p.latestSync.downstream)}` : "—",
      leader: state ? (state.leader === null ? "none (offline)" : String(state.leader)) : "—",
      leaderEpoch: state ? String(state.leaderEpoch) : p.sourceLeaderEpoch === null ? "—" : String(p.sourceLeaderEpoch),
      isr: state ? state.isr.join(",") : "—",
      replicas: state ? state.replicas.join(",") : "—",
      underReplicated: state !== null && state.isr.length < state.replicas.length,
    };
  });
}

/** Why a partition is unknown and how old its last good data is, for the row's tooltip. */
function describeUnknown(unknown: UnknownData, takenAt: number): string {
  const known = unknown.dataAt === null ? "never read" : `last read ${formatAge(takenAt - unknown.dataAt)} before this cycle`;
  return `${unknown.reason} (${known})`;
}

const plural = (n: bigint, one: string, many: string) => `${formatCount(n)} ${n === 1n ? one : many}`;

/**
 * Lag counts data records when the tail read reached the log end (`lagBasis` "records"): the offsets
 * it leaves out hold no record MM2 copies (transaction markers). Counted in offsets on a partition
 * that has markers, lag is an upper bound. Otherwise lag and offsets agree: no note.
 */
export function describeLagBasis(p: Pick<FlowPartition, "lag" | "offsetLag" | "lagBasis" | "transactionMarkersSeen">): RowNote | null {
  if (p.lag === null || p.offsetLag === null) return null;
  if (p.lagBasis === "records" && p.offsetLag > p.lag) {
    const skipped = p.offsetLag - p.lag;
    const what = p.transactionMarkersSeen ? plural(skipped, "marker", "markers") : plural(skipped, "offset", "offsets");
    return {
      label: `excl. ${what}`,
      detail:
        `Lag counts data records read from the source log: ${plural(p.offsetLag, "offset is", "offsets are")} past MM2's position, ` +
        `${formatCount(skipped)} of them ${skipped === 1n ? "holds" : "hold"} no record MM2 copies (transaction markers take an offset and are never copied).`,
    };
  }
  if (p.lagBasis === "offsets" && p.transactionMarkersSeen && p.lag > 0n) {
    return {
      label: "upper bound",
      detail:
        "Lag counted in offsets (the source log was not read to its end this cycle); " +
        "this partition has transaction markers, which take offsets but are never copied.",
    };
  }
  return null;
}

/**
 * The transaction ledger of a partition in one line: aborted records MM2's position passed (copied
 * when MM2 reads uncommitted: ABORTED_RECORDS_COPIED), and whether the ledger is behind the log end.
 */
export function describeTransactionLedger(view: TransactionLedgerView | undefined, position: bigint | null): RowNote | null {
  if (view === undefined) return null;
  const total = view.aborted.reduce((sum, s) => sum + s.records, 0n);
  const passed = position === null ? 0n : countAbortedBelow(view, position).records;
  const behind = view.cursor < view.logEnd;
  const label = `${formatCount(passed > 0n ? passed : total)} aborted${passed > 0n ? " copied" : ""}${behind ? " · ledger behind" : ""}`;
  const unread = `${formatCount(view.cursor)}–${formatCount(view.logEnd - 1n)}`;
  const unclassified = behind ? ` Offsets ${unread} not classified yet (an open transaction, or still reading).` : "";
  const detail =
    `Transaction ledger (read_committed from offset ${formatCount(view.readFrom)}): offsets below ${formatCount(view.cursor)} classified; ` +
    `${plural(total, "record", "records")} of aborted transactions still in the source log, ${formatCount(passed)} below MM2's position ` +
    `(MM2 reading uncommitted copies them, KAFKA-14021).${unclassified}`;
  return { label, detail };
}

function describeDensityIssue(issue: string): string {
  return `MM2 position is Connect's committed one, not derived from the target's log end: ${issue}`;
}

/** Largest `?synthetic=` the topic page accepts (keeps a typo from freezing the tab). */
export const maxSyntheticRows = 100_000;

/** `?synthetic=N` → N (capped), or 0 when absent or not a positive integer. */
export function parseSyntheticParam(raw: string | string[] | undefined): number {
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (value === undefined || !/^\d{1,7}$/.test(value)) return 0;
  return Math.min(Number(value), maxSyntheticRows);
}
