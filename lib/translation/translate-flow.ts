/**
 * Offset translation of every consumer group MM2 checkpoints on one flow. Pure: the caller passes
 * the snapshot's flow and groups, the collector's sync history and `now`.
 *
 * RULES, per group × partition of the flow's SOURCE cluster:
 * 1. Groups: those with committed offsets on topics the flow replicates, kept by MM2's groups
 *    filter (`groups` and `groups.exclude` from the checkpoint connector, MM2's defaults without
 *    one; lib/mm2/group-filter.ts). Filtered-out groups are listed, not translated. Groups of a type
 *    MM2 does not checkpoint (streams, share: group-types.ts) are listed with their source position
 *    and what happens to them after failover, never translated.
 * 2. MM2's translation: the partition's full sync history replayed into the OffsetSyncStore model
 *    (sync-slots.ts, as numbers; start-up assumption documented in sync-model.ts), then translateDownstream(committed):
 *    empty → `no-sync` (or `store-not-loaded` when the syncs topic could not be read), −1 →
 *    `older-than-oldest-sync`; a partition outside the flow → `not-replicated`.
 * 3. Ideal: the exact (or bracketed) target position from the full history (mapIdealOffset).
 * 4. Re-reads: ideal − translation (`reread`), ideal − latest checkpoint (`checkpointReread`),
 *    ideal − what a failover with MM2's offsets gives now (`failoverReread`: checkpoint, else model).
 *    Brackets report the conservative (high) bound; negative = records SKIPPED (reread.ts).
 */
import { FlowFlag, readFlowColumns } from "@/lib/collector/flow-columns";
import { readPartitionSettings } from "@/lib/collector/partition-settings";
import type { CheckpointPoint, ClusterSnapshot, ConsumerGroupState, Flow, FlowPartition, GroupOffset, Snapshot } from "@/lib/collector/types";
import { readSyncHistories, type SyncHistories, type SyncHistorySource } from "@/lib/collector/sync-history";
import { compileGroupFilter, defaultSourceTaskSettings, type SyncPoint, translateFromSync } from "@/lib/mm2";
import { CheckpointIndex } from "./checkpoint-index";
import { explainUncheckpointedGroup, isCheckpointedGroupType } from "./group-types";
import { compareTopicPartitions, FlowRowsState, type GroupLayout, setNumericRow } from "./flow-rows";
import { addTotals, estimateReread } from "./reread";
import { attachFlowRows } from "./sample-columns";
import { mapIdealOffsetFrom, type ReplayOptions, SyncModelCache } from "./sync-model";
import type { SyncSlots } from "./sync-slots";
import { ColumnGroupRows, createColumnGroup } from "./translation-rows";
import {
  type FlowTranslation,
  type GroupTranslation,
  type IdealOffset,
  type ModelTranslation,
  type PartitionTranslation,
  type TranslationTotals,
  type UncheckpointedGroup,
  type UncheckpointedPartition,
  UntranslatableReason,
} from "./types";

/** Everything translateFlow needs; all of it comes from one snapshot and the collector's history. */
export interface TranslateFlowInput {
  flow: Flow;
  /** Consumer groups of the flow's source cluster (ClusterSnapshot.groups). */
  sourceGroups: readonly ConsumerGroupState[];
  /** CollectorHistory.offsetSyncs: every sync read, per `flowPartitionKey`, oldest first. */
  syncHistory: SyncHistorySource;
  now: number;
  /** False when the offset-syncs topic could not be read and nothing was read before (default true). */
  syncsLoaded?: boolean;
  /** Reuse replayed models across cycles (strongly advised for the collector and the views). */
  cache?: SyncModelCache;
  /** The flow's checkpoint index kept from its last cycle (checkpoint-index.ts); built afresh without one. */
  checkpointIndex?: CheckpointIndex;
  /** How MirrorCheckpointTask loaded its store, when no cache is given (sync-model.ts). */
  replay?: ReplayOptions;
  /** Why the source cluster's data is not this cycle's (unreachable or stale); null/absent when fresh. */
  sourceStale?: string | null;
}

/** Translates every checkpointed group of one flow (see the rules above). */
export function translateFlow(input: TranslateFlowInput): FlowTranslation {
  const { flow, now } = input;
  const cache = input.cache ?? new SyncModelCache(input.replay);
  const syncsLoaded = input.syncsLoaded ?? true;
  const filter = compileGroupFilter(flow.groupsFilter, flow.groupsExclude);
  const state = cache.lookupFlow(flow.id, () => new FlowRowsState(flow.id, cache.options));
  const histories = readSyncHistories(input.syncHistory);
  state.beginCycle(histories);
  // The source log ends as numbers, checked below 2^53 once per partition where the collector made the columns.
  const columns = readFlowColumns(flow);
  const partitions = state.placer.place(flow, columns);
  const logEnds = state.placer.readColumn(columns.slotAt, columns.sourceLogEnd);
  // Whether each partition's target is dense (FlowFlag.TARGET_NOT_DENSE clear), and whether offset syncs are on for
  // every partition alike: a numeric row reads no flow partition object.
  const flags = state.placer.readByteColumn(columns.slotAt, columns.flags);
  const syncsEnabled = readFlowSyncsEnabled(flow);
  const checkpoints = (input.checkpointIndex ?? state.checkpointIndex).update(flow.checkpoints);
  let capacity = 0;
  for (const g of input.sourceGroups) capacity += g.offsets.length;
  const rows = state.takeRows(capacity, now, cache.reusesRows);
  rows.readPartitionsFrom(partitions);
  let next = 0;
  const groups: GroupTranslation[] = [];
  const excludedGroups: string[] = [];
  const uncheckpointedGroups: UncheckpointedGroup[] = [];
  const layouts: GroupLayout[] = [];
  for (const g of state.sortGroups(input.sourceGroups)) {
    if (!isCheckpointedGroupType(g.groupType)) {
      const rows = listUncheckpointedPartitions(g, (topic, partition) => partitions.at(state.placer.index.indexOf(topic, partition)));
      if (!rows.some((r) => partitions.topics.has(r.topic))) continue;
      const unknown = describeUnknownGroup(g, input.sourceStale ?? null, now);
      uncheckpointedGroups.push({ group: g.groupId, groupType: g.groupType, state: g.state, members: g.members, unknown, note: explainUncheckpointedGroup(g.groupType), partitions: rows });
      continue;
    }
    const offsets = listCommittedOffsets(g.offsets);
    if (!offsets.some((o) => partitions.topics.has(o.topic))) continue;
    if (!filter.matches(g.groupId)) {
      excludedGroups.push(g.groupId);
      continue;
    }
    // Made for the group's first row held as an object (none in a usual cycle).
    let ctx: RowContext | null = null;
    const layout = state.readLayout(g.groupId, offsets);
    layouts.push(layout);
    const checkpointAt = state.readCheckpointPositions(layout, g.groupId, checkpoints);
    const start = next;
    for (let i = 0; i < layout.order.length; i++) {
      const o = offsets[layout.order[i]!]!;
      const index = layout.dense[i]!;
      const position = checkpointAt[i]!;
      const r = next++;
      // A numeric row reads no flow partition object (100,000 made a cycle otherwise): the offset names the partition.
      const placed = partitions.has(index);
      const enabled = placed && syncsLoaded && (syncsEnabled ?? readPartitionSettings(flow, partitions.at(index)!).offsetSyncsEnabled);
      if (enabled && state.readExactModel(index, o, cache, histories)) {
        const dense = (flags[index]! & FlowFlag.TARGET_NOT_DENSE) === 0;
        const history = state.readHistory(index, histories);
        if (setNumericRow(rows, r, state, index, history, o, dense, logEnds[index]!, o.offset, checkpoints, position, g.dataAt)) continue;
      }
      const fp = partitions.at(index);
      const cp = position < 0 ? undefined : checkpoints.at(position);
      const indexed = fp === undefined ? undefined : { fp, index, state };
      ctx ??= { flow, group: g.groupId, groupReadAt: g.dataAt, syncsLoaded, cache, syncHistory: histories, now };
      rows.setObject(r, translatePartition(ctx, o.topic, o.partition, o.offset, indexed, cp));
    }
    const reader = new ColumnGroupRows(rows, start, layout.topics, layout.partitions);
    const totals = createTotals();
    rows.addTotals(start, next, totals);
    const unknown = describeUnknownGroup(g, input.sourceStale ?? null, now);
    // The rows are made from the columns on first read (a page, the API, the read model's text); detectors read columns.
    const head = { group: g.groupId, groupType: g.groupType, state: g.state, members: g.members, unknown };
    const group = createColumnGroup(head, reader, totals);
    groups.push(group);
  }
  state.endCycle();
  const translation: FlowTranslation = {
    flow: flow.id,
    source: flow.source,
    target: flow.target,
    at: now,
    syncsLoaded,
    checkpointTiming: flow.checkpointTiming,
    groups,
    excludedGroups,
    uncheckpointedGroups,
    totals: { ...addTotals(groups.map((g) => g.totals)), groups: groups.length },
  };
  attachFlowRows(translation, rows, () => state.readSampleKeys(layouts));
  return translation;
}

/**
 * `emit.offset-syncs.enabled` of every partition of the flow when one connector's settings govern them all (no
 * per-connector settings: readPartitionSettings gives the flow's); null when each partition's connector decides.
 */
function readFlowSyncsEnabled(flow: Flow): boolean | null {
  if (flow.sourceSettingsByConnector !== undefined) return null;
  return (flow.sourceTaskSettings ?? defaultSourceTaskSettings).offsetSyncsEnabled;
}

/** The offsets at or above 0 (a group's own array when all are: no copy per group and cycle). */
function listCommittedOffsets(offsets: readonly GroupOffset[]): readonly GroupOffset[] {
  for (let i = 0; i < offsets.length; i++) if (offsets[i]!.offset < 0n) return offsets.filter((x) => x.offset >= 0n);
  return offsets;
}

/** Totals of no row, to add rows to. */
function createTotals(): TranslationTotals {
  return { partitions: 0, translated: 0, untranslatable: 0, rereadRecords: 0n, failoverReplayRecords: 0n, skippingPartitions: 0, groupLag: 0n, oldestCheckpointAgeMs: null };
}

/** A flow partition with its dense index in the flow's state (its history and replayed model). */
interface IndexedPartition {
  /** Also the partition's TopicPartition (its topic and number: no copy per partition and cycle). */
  fp: FlowPartition;
  index: number;
  state: FlowRowsState;
}

/** A streams group's committed offsets, or a share group's start offsets, with the flow's view of each partition. */
function listUncheckpointedPartitions(g: ConsumerGroupState, findPartition: (topic: string, partition: number) => FlowPartition | undefined): UncheckpointedPartition[] {
  const position = (topic: string, partition: number) => {
    const fp = findPartition(topic, partition);
    return { targetTopic: fp?.targetTopic ?? null, sourceLogEnd: fp?.sourceLogEnd ?? null };
  };
  const committed = g.offsets
    .filter((o) => o.offset >= 0n)
    .map((o): UncheckpointedPartition => {
      const at = position(o.topic, o.partition);
      const lag = at.sourceLogEnd === null ? null : at.sourceLogEnd > o.offset ? at.sourceLogEnd - o.offset : 0n;
      return { topic: o.topic, partition: o.partition, ...at, kind: "committed", offset: o.offset, lag };
    });
  const shareStarts = (g.shareOffsets ?? []).map(
    (o): UncheckpointedPartition => ({ topic: o.topic, partition: o.partition, ...position(o.topic, o.partition), kind: "share-start", offset: o.startOffset, lag: o.lag }),
  );
  return [...committed, ...shareStarts].sort(compareTopicPartitions);
}

/** Why a group's offsets are not this cycle's, with the age of the read the rows use; null when they are. */
function describeUnknownGroup(g: ConsumerGroupState, sourceStale: string | null, now: number): string | null {
  const reason = g.error ?? sourceStale;
  if (reason === null) return null;
  const age = g.dataAt === null ? "never read" : `last read ${Math.round(Math.max(0, now - g.dataAt) / 1000)} s ago`;
  return `${reason} (${age})`;
}

/**
 * translateFlow for a flow of a snapshot: source groups from the snapshot, and `syncsLoaded` false
 * only when reading the offset-syncs topic failed (cluster unreachable, or an error naming the
 * topic) and no sync of the flow was ever read.
 */
export function translateSnapshotFlow(
  snapshot: Snapshot,
  flow: Flow,
  syncHistory: SyncHistorySource,
  now: number,
  options: { cache?: SyncModelCache; replay?: ReplayOptions; checkpointIndex?: CheckpointIndex } = {},
): FlowTranslation {
  const source = snapshot.clusters.find((c) => c.alias === flow.source);
  const syncsCluster = snapshot.clusters.find((c) => c.alias === flow.offsetSyncs.cluster);
  const readFailed = !syncsCluster?.reachable || flow.errors.some((e) => e.includes(flow.offsetSyncs.topic));
  const prefix = `${flow.id}|`;
  const anyHistory = holdsFlowHistory(readSyncHistories(syncHistory), prefix);
  const sourceStale = source === undefined ? `cluster ${flow.source} not in the snapshot` : describeStaleCluster(source);
  return translateFlow({ flow, sourceGroups: source?.groups ?? [], syncHistory, now, syncsLoaded: anyHistory || !readFailed, sourceStale, ...options });
}

/** Whether any partition of the flow (`prefix`: `<flow>|`) has a sync; stops at the first (no copy of 100,000 entries). */
function holdsFlowHistory(syncHistory: SyncHistories, prefix: string): boolean {
  for (const key of syncHistory.keys()) if (key.startsWith(prefix) && syncHistory.get(key)!.length > 0) return true;
  return false;
}

function describeStaleCluster(cluster: ClusterSnapshot): string | null {
  if (cluster.reachable && !cluster.stale) return null;
  return `cluster ${cluster.alias} ${cluster.reachable ? "data is stale" : "unreachable"}${cluster.error ? `: ${cluster.error}` : ""}`;
}

interface RowContext {
  flow: Flow;
  group: string;
  /** When Gapwatch read the group's committed offsets (cycle start); null when unknown. */
  groupReadAt: number | null;
  syncsLoaded: boolean;
  cache: SyncModelCache;
  syncHistory: SyncHistories;
  now: number;
}

function translatePartition(
  ctx: RowContext,
  topic: string,
  partition: number,
  read: bigint,
  indexed: IndexedPartition | undefined,
  cp: CheckpointPoint | undefined,
): PartitionTranslation {
  // A checkpoint MM2 wrote after Gapwatch read the group can be for a later commit: the group has
  // committed at least its upstream offset by then (seen in the soak: committed 1185 read, then
  // checkpoint 1186→1194, which compared with the stale read looked like a 1-record skip). A real
  // rewind shows as an older checkpoint above the committed offset, and is judged as such.
  const newerCheckpoint = cp !== undefined && cp.upstream > read && ctx.groupReadAt !== null && cp.at > ctx.groupReadAt;
  const committed = newerCheckpoint ? cp.upstream : read;
  const checkpoint = cp ? { upstream: cp.upstream, downstream: cp.downstream, at: cp.at, ageMs: Math.max(0, ctx.now - cp.at) } : null;
  if (!indexed) {
    const translation: ModelTranslation = { kind: "untranslatable", reason: UntranslatableReason.NOT_REPLICATED, detail: `${topic}/${partition} is not replicated by ${ctx.flow.id}` };
    const ideal: IdealOffset = { kind: "unknown", reason: "not-replicated" };
    return { topic, partition, targetTopic: null, committed, sourceLogEnd: null, groupLag: null, translation, checkpoint, ideal, reread: null, checkpointReread: null, failoverReread: null };
  }
  const { fp } = indexed;
  if (!readPartitionSettings(ctx.flow, fp).offsetSyncsEnabled) return describeSyncsDisabled(ctx.flow, fp, committed, checkpoint);
  const { index, state } = indexed;
  const hasModel = state.readModel(index, ctx.cache, ctx.syncHistory);
  const history = state.readHistory(index, ctx.syncHistory);
  const dense = fp.targetDensityIssue === null;
  const ideal: IdealOffset = hasModel ? mapIdealOffsetFrom(history, state.models.epochStart(index), committed, dense) : { kind: "unknown", reason: "no-sync" };
  const translation = translateCommitted(ctx, indexed, hasModel, committed);
  const lag = fp.sourceLogEnd === null ? null : fp.sourceLogEnd - committed;
  const translated = translation.kind === "translated" ? translation.downstream : null;
  const reread = estimateReread(ideal, translated);
  // A checkpoint at MM2's translation (the usual case) re-reads what the translation does: one estimate for both.
  const checkpointReread = checkpoint !== null && checkpoint.downstream === translated ? reread : estimateReread(ideal, checkpoint?.downstream ?? null);
  return {
    topic,
    partition,
    targetTopic: fp.targetTopic,
    committed,
    sourceLogEnd: fp.sourceLogEnd,
    groupLag: lag === null ? null : lag > 0n ? lag : 0n,
    translation,
    checkpoint,
    ideal,
    reread,
    checkpointReread,
    // A failover resumes at MM2's offset: the checkpoint's, else the model's (selectMirrorMakerOffset), so its
    // estimate is one of the two above, shared rather than computed again (190,000 rows at 100k partitions).
    failoverReread: checkpoint ? checkpointReread : reread,
  };
}

/**
 * A row of a flow whose MirrorSourceConnector sets `emit.offset-syncs.enabled=false`: MM2 translates nothing, so
 * every re-read figure is unavailable (null), never a count from syncs an earlier run left in the topic.
 */
function describeSyncsDisabled(flow: Flow, fp: FlowPartition, committed: bigint, checkpoint: PartitionTranslation["checkpoint"]): PartitionTranslation {
  const detail = `${flow.connectors.source ?? "MM2"} sets emit.offset-syncs.enabled=false: MM2 writes no offset syncs and no checkpoints`;
  const lag = fp.sourceLogEnd === null ? null : fp.sourceLogEnd - committed;
  return {
    topic: fp.topic,
    partition: fp.partition,
    targetTopic: fp.targetTopic,
    committed,
    sourceLogEnd: fp.sourceLogEnd,
    groupLag: lag === null ? null : lag > 0n ? lag : 0n,
    translation: { kind: "untranslatable", reason: UntranslatableReason.SYNCS_DISABLED, detail },
    checkpoint,
    ideal: { kind: "unknown", reason: "offset-syncs-disabled" },
    reread: null,
    checkpointReread: null,
    failoverReread: null,
  };
}

/** MM2's translation of a committed offset by the partition's replayed model (`hasModel` false: no sync in the history). */
function translateCommitted(ctx: RowContext, indexed: IndexedPartition, hasModel: boolean, committed: bigint): ModelTranslation {
  const tp = indexed.fp;
  if (!hasModel) {
    return ctx.syncsLoaded ? { kind: "untranslatable", reason: UntranslatableReason.NO_SYNC, detail: `MM2 has written no offset sync for ${tp.topic}/${tp.partition} yet` } : notLoaded(ctx.flow);
  }
  if (!ctx.syncsLoaded) return notLoaded(ctx.flow);
  // OffsetSyncStore.translateDownstream (the store is read to its end): the latest sync at or before the offset, else
  // the oldest slot, too old (Java −1).
  const sync = lookupLatestSync(indexed.state.models.slots, indexed.index, committed);
  if (sync.upstream <= committed) {
    const shared = indexed.state.shared;
    return shared.share(indexed.index, Number(sync.upstream), Number(sync.downstream), Number(committed), translateFromSync(sync, committed));
  }
  const detail = `offset ${committed} is older than the oldest sync MM2 keeps (upstream ${sync.upstream}): MM2 translates it to −1 and emits no checkpoint`;
  return { kind: "untranslatable", reason: UntranslatableReason.OLDER_THAN_OLDEST_SYNC, detail };
}

/** Java lookupLatestSync on bigints: the first slot at or before `offset`, else the oldest (slot 63). */
function lookupLatestSync(slots: SyncSlots, p: number, offset: bigint): SyncPoint {
  const runs = slots.countRuns(p);
  for (let k = 0; k < runs; k++) {
    const at = slots.runAt(p, k);
    const upstream = BigInt(slots.upstreamAt(at));
    if (upstream <= offset || k === runs - 1) return { upstream, downstream: BigInt(slots.downstreamAt(at)) };
  }
  throw new Error(`lookupLatestSync of a partition without a sync (${p})`);
}

function notLoaded(flow: Flow): ModelTranslation {
  return { kind: "untranslatable", reason: UntranslatableReason.STORE_NOT_LOADED, detail: `${flow.offsetSyncs.topic} on ${flow.offsetSyncs.cluster} has not been read to its end` };
}
