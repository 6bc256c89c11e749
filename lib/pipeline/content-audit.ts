import {
  type AlertRef,
  type AuditCost,
  type AuditMapping,
  type AuditSample,
  auditStateKey,
  AuditTally,
  type AuditWindow,
  compareWindow,
  confirmLostRanges,
  createAuditCursors,
  decodeAuditState,
  encodeAuditState,
  type FlowAuditPlan,
  type FlowAuditView,
  listLostRanges,
  type LostRangeContext,
  mapSourceOffset,
  planAudit,
  type TargetRead,
} from "@/lib/audit";
import { countAuditMetrics } from "@/lib/alerts/metrics";
import { listFocusOffsets, MismatchFindings } from "@/lib/detect/audit-mismatch";
import { findEncodedSlot, generationOf, readFlowColumns, slotOf } from "@/lib/collector/flow-columns";
import type { RecordSampleRead } from "@/lib/collector/record-samples";
import { readSyncHistories } from "@/lib/collector/sync-history";
import { type CollectorHistory, type Flow, type FlowPartition, flowPartitionKey, type Snapshot } from "@/lib/collector/types";
import type { AuditConfig } from "@/lib/config";
import type { Finding } from "@/lib/detect/types";
import { type FetchedRecord, type FetchRequestItem, type FetchResult, isItemError } from "@/lib/kafka";
import { getLogger } from "@/lib/logger";
import { selectLatestEpoch } from "@/lib/mm2";
import type { Store } from "@/lib/store";

const log = getLogger("audit");
/** The counters are written to the store every this many cycles; a change of held findings or a confirmed loss at once. */
const persistEveryCycles = 12;

/** Reads sampled records on one cluster (the collector's readers: Collector.readRecordSamples). */
export interface RecordSampleReader {
  readRecordSamples(cluster: string, items: readonly FetchRequestItem[]): Promise<RecordSampleRead>;
}

interface MappedWindow {
  sampled: { record: FetchedRecord; mapping: AuditMapping }[];
  targetFrom: bigint;
}

/**
 * The content audit of each cycle (issue 16): plan (lib/audit) → read the sampled source records, one Fetch per
 * leader broker → map each to its target offset → read the target around them, one Fetch per leader broker →
 * compare by hashes → count per flow and topic, Prometheus counters, AUDIT_MISMATCH findings for the next
 * alert cycle, DATA_LOSS ranges confirmed missing. The counters, coverage and held findings are kept in the store
 * (see saveState; read before the first cycle's findings), so a
 * restart neither forgets what was verified nor resolves an AUDIT_MISMATCH; the cursors start afresh.
 */
export class ContentAuditor {
  private readonly cursors = createAuditCursors();
  private readonly tally = new AuditTally();
  private readonly mismatches = new MismatchFindings();
  private readonly exclude: RegExp[];
  private readonly ignoreHeaders: ReadonlySet<string>;
  private current: Finding[] = [];
  /** The stored state was read (until then nothing is written, so a failed read never overwrites it). */
  private loaded = false;
  private dirty = false;
  private cyclesSinceSave = 0;

  constructor(
    private readonly config: AuditConfig,
    private readonly pollIntervalSeconds: number,
    private readonly reader: RecordSampleReader,
    private readonly store: Pick<Store, "getValue" | "setValue">,
  ) {
    this.exclude = config.exclude.map((source) => new RegExp(`^(?:${source})$`));
    this.ignoreHeaders = new Set(config.ignoreHeaders);
  }

  /** AUDIT_MISMATCH findings as of the latest audit (held between visits and restarts). */
  async findings(): Promise<Finding[]> {
    await this.loadState();
    return this.current;
  }

  /** Every audited flow's view, by flow id. */
  views(now: number): Map<string, FlowAuditView> {
    const views = new Map<string, FlowAuditView>();
    for (const flow of this.tally.flowIds()) {
      const view = this.tally.view(flow, now);
      if (view !== null) views.set(flow, view);
    }
    return views;
  }

  /** Audits one cycle's sample; `alerts` (the cycle's) give the focus offsets and what explains a mismatch. */
  async auditCycle(snapshot: Snapshot, history: CollectorHistory, alerts: readonly AlertRef[]): Promise<void> {
    await this.loadState();
    const cpu = process.cpuUsage();
    const now = snapshot.takenAt;
    const heldBefore = this.current.map((f) => f.key).join();
    const budget = Math.max(1, Math.round((this.config.recordsPerFlowPerMinute * this.pollIntervalSeconds) / 60));
    const plans = planAudit({ flows: snapshot.flows, syncs: history.offsetSyncs, focus: listFocusOffsets(alerts), budget, exclude: this.exclude }, this.cursors);
    if (plans.length === 0) {
      this.current = this.mismatches.update([], alerts, now);
      await this.saveState(this.current.map((f) => f.key).join() !== heldBefore);
      return;
    }
    const cost: AuditCost = { windows: plans.reduce((n, p) => n + p.windows.length, 0), fetchRequests: 0, bytes: 0, cpuMs: 0 };
    const sources = await this.readSide(plans, (p) => p.source, (w) => ({ topic: w.topic, partition: w.partition, offset: w.from }), cost);
    const flows = new Map(snapshot.flows.map((f) => [f.id, f]));
    const mapped = new Map<AuditWindow, MappedWindow>();
    for (const plan of plans) {
      for (const w of plan.windows) {
        const m = mapWindow(flows.get(plan.flow)!, w, sources.get(sideKey(plan.source, w.topic, w.partition)), history);
        if (m !== null) mapped.set(w, m);
      }
    }
    const mappedPlans = plans.map((p) => ({ ...p, windows: p.windows.filter((w) => mapped.has(w)) }));
    const targets = await this.readSide(mappedPlans, (p) => p.target, (w) => ({ topic: w.targetTopic, partition: w.partition, offset: mapped.get(w)!.targetFrom }), cost);
    const all: AuditSample[] = [];
    const perFlow = new Map<string, AuditSample[]>();
    for (const plan of mappedPlans) {
      const samples: AuditSample[] = [];
      for (const w of plan.windows) {
        const read = targets.get(sideKey(plan.target, w.targetTopic, w.partition));
        if (read === undefined || isItemError(read)) continue;
        const target: TargetRead = { records: read.records, nextOffset: read.nextOffset, logStart: read.logStartOffset, logEnd: read.highWatermark };
        samples.push(...compareWindow(w, mapped.get(w)!.sampled, target, this.ignoreHeaders));
      }
      perFlow.set(plan.flow, samples);
      all.push(...samples);
    }
    const used = process.cpuUsage(cpu);
    cost.cpuMs = Math.round((used.user + used.system) / 1000);
    const ranges = listLostRanges(alerts);
    const contextOf = contextReader(snapshot, history);
    let urgent = false;
    for (const [flow, samples] of perFlow) {
      this.tally.record(flow, samples, now, cost);
      countAuditMetrics(flow, countOutcomes(samples));
      if (ranges.size > 0) urgent = this.tally.confirmLosses(flow, confirmLostRanges(flow, ranges, samples, contextOf, now)) || urgent;
    }
    this.dirty ||= all.length > 0;
    this.current = this.mismatches.update(all, alerts, now);
    await this.saveState(urgent || this.current.map((f) => f.key).join() !== heldBefore);
    log.debug({ cycle: snapshot.cycle, ...cost, audited: all.length }, "content audit done");
  }

  /** Reads the stored counters and held findings once; an unreadable state is logged and started afresh. */
  private async loadState(): Promise<void> {
    if (this.loaded) return;
    let raw: string | null;
    try {
      raw = await this.store.getValue(auditStateKey);
    } catch (err) {
      // Not loaded: tried again next cycle, and nothing is written meanwhile.
      log.error({ err: err instanceof Error ? err.message : String(err) }, "reading the content audit's state from the store failed");
      return;
    }
    this.loaded = true;
    if (raw === null) return;
    try {
      const state = decodeAuditState(raw);
      this.tally.importState(state.tallies);
      this.mismatches.importHeld(state.held);
      this.current = state.held;
    } catch (err) {
      log.warn({ err: err instanceof Error ? err.message : String(err) }, "stored content audit state unreadable; starting afresh");
    }
  }

  /** Writes the state when `urgent` (held findings changed, a loss confirmed), else every `persistEveryCycles` cycles if changed. */
  private async saveState(urgent: boolean): Promise<void> {
    this.cyclesSinceSave++;
    if (!this.loaded || !(urgent || (this.dirty && this.cyclesSinceSave >= persistEveryCycles))) return;
    const value = encodeAuditState({ tallies: this.tally.exportState(), held: this.mismatches.exportHeld() });
    try {
      await this.store.setValue(auditStateKey, value);
      this.dirty = false;
      this.cyclesSinceSave = 0;
    } catch (err) {
      // Kept in memory and written again next cycle (a store error never hides the audit).
      log.error({ err: err instanceof Error ? err.message : String(err) }, "writing the content audit's state to the store failed");
    }
  }

  /** One read per cluster of one side (one Fetch per leader broker), keyed `cluster|topic|partition`. */
  private async readSide(
    plans: readonly FlowAuditPlan[],
    clusterOf: (p: FlowAuditPlan) => string,
    itemOf: (w: AuditWindow) => FetchRequestItem,
    cost: AuditCost,
  ): Promise<Map<string, FetchResult | undefined>> {
    const byCluster = new Map<string, FetchRequestItem[]>();
    for (const p of plans) for (const w of p.windows) byCluster.set(clusterOf(p), [...(byCluster.get(clusterOf(p)) ?? []), itemOf(w)]);
    const out = new Map<string, FetchResult | undefined>();
    for (const [cluster, items] of byCluster) {
      const read = await this.reader.readRecordSamples(cluster, items);
      cost.fetchRequests += read.requests;
      if (read.error !== null) log.warn({ cluster, err: read.error }, "content audit read failed; those partitions are not audited this cycle");
      for (const item of items) {
        const result = read.results.get(`${item.topic}/${item.partition}`);
        if (result !== undefined && !isItemError(result)) cost.bytes += result.records.reduce((n, r) => n + sizeOf(r), 0);
        out.set(sideKey(cluster, item.topic, item.partition), result);
      }
    }
    return out;
  }
}

/**
 * A flow partition's latest sync epoch and source log start, for confirmLostRanges: the log start from its flow's
 * columns (flow-columns.ts); the partition objects, indexed on first use, only where the columns cannot tell (a
 * partition listed twice, or whose data is unknown).
 */
function contextReader(snapshot: Snapshot, history: CollectorHistory): (key: string) => LostRangeContext | null {
  let rows: Map<string, FlowPartition> | null = null;
  const flows = new Map(snapshot.flows.map((f) => [f.id, f]));
  return (key) => {
    const epoch = () => selectLatestEpoch(readSyncHistories(history.offsetSyncs).list(key));
    const found = findPartition(flows.get(key.slice(0, key.indexOf("|"))), key);
    if (found !== undefined) return found === null ? null : { epoch: epoch(), sourceLogStart: found.sourceLogStart };
    rows ??= new Map(snapshot.flows.flatMap((f) => f.partitions.map((p) => [flowPartitionKey(f.id, p.topic, p.partition), p] as const)));
    const p = rows.get(key);
    return p === undefined ? null : { epoch: epoch(), sourceLogStart: p.sourceLogStart };
  };
}

/**
 * The partition of `flow` with flow partition key `key`, from the flow's columns (flow-columns.ts) instead of a search
 * of its partitions: null when the flow does not list it, undefined when the columns cannot tell (listed twice, or
 * its data unknown: no position holds it as known).
 */
function findPartition(flow: Flow | undefined, key: string): FlowPartition | null | undefined {
  if (flow === undefined) return null;
  const columns = readFlowColumns(flow);
  if (columns.duplicates) return undefined;
  const at = findEncodedSlot(key);
  if (at < 0 || generationOf(at) !== columns.generation) return null;
  const position = columns.knownPositionOf[slotOf(at)]!;
  return position < 0 ? undefined : flow.partitions[position];
}

function sideKey(cluster: string, topic: string, partition: number): string {
  return `${cluster}|${topic}|${partition}`;
}

/**
 * The window's sampled source records (the first `count` at or after `from`, below MM2's position) with their
 * mappings, and where the target read starts: the lowest mapped offset, never below the target's log start.
 */
function mapWindow(flow: Flow, w: AuditWindow, read: FetchResult | undefined, history: CollectorHistory): MappedWindow | null {
  const found = findPartition(flow, flowPartitionKey(flow.id, w.topic, w.partition));
  const p = found === undefined ? flow.partitions.find((x) => x.topic === w.topic && x.partition === w.partition) : (found ?? undefined);
  if (read === undefined || isItemError(read) || p === undefined || p.targetLogEnd === null) return null;
  const epoch = selectLatestEpoch(readSyncHistories(history.offsetSyncs).list(flowPartitionKey(flow.id, w.topic, w.partition)));
  const dense = p.targetDensityIssue === null;
  const sampled = read.records
    .filter((r) => r.offset >= w.from && r.offset < w.until)
    .slice(0, w.count)
    .map((record) => ({ record, mapping: mapSourceOffset(epoch, record.offset, dense, p.targetLogEnd!) }));
  const lows = sampled.flatMap(({ mapping: m }) => (m.kind === "exact" ? [m.target] : m.kind === "bracket" ? [m.low] : []));
  if (lows.length === 0) return null;
  const lowest = lows.reduce((a, b) => (b < a ? b : a));
  const targetFrom = p.targetLogStart !== null && lowest < p.targetLogStart ? p.targetLogStart : lowest;
  return { sampled, targetFrom };
}

function countOutcomes(samples: readonly AuditSample[]): Record<string, number> {
  const counts: Record<string, number> = { matched: 0, mismatched: 0, missing: 0, duplicate: 0, foreign: 0 };
  for (const s of samples) counts[s.outcome] = (counts[s.outcome] ?? 0) + 1;
  return counts;
}

function sizeOf(r: FetchedRecord): number {
  return (r.key?.length ?? 0) + (r.value?.length ?? 0) + r.headers.reduce((n, h) => n + h.key.length + (h.value?.length ?? 0), 0);
}
