import {
  type AlertRef,
  type AuditCost,
  type AuditMapping,
  type AuditSample,
  AuditTally,
  type AuditWindow,
  compareWindow,
  createAuditCursors,
  type FlowAuditPlan,
  type FlowAuditView,
  listFocusOffsets,
  mapSourceOffset,
  MismatchFindings,
  planAudit,
  type TargetRead,
} from "@/lib/audit";
import { countAuditMetrics } from "@/lib/alerts/metrics";
import type { RecordSampleRead } from "@/lib/collector/record-samples";
import { type CollectorHistory, type Flow, flowPartitionKey, type Snapshot } from "@/lib/collector/types";
import type { AuditConfig } from "@/lib/config";
import type { Finding } from "@/lib/detect/types";
import { type FetchedRecord, type FetchRequestItem, type FetchResult, isItemError } from "@/lib/kafka";
import { getLogger } from "@/lib/logger";
import { selectLatestEpoch } from "@/lib/mm2";

const log = getLogger("audit");

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
 * alert cycle. Cursors, counters and held findings live in memory (a restart audits afresh).
 */
export class ContentAuditor {
  private readonly cursors = createAuditCursors();
  private readonly tally = new AuditTally();
  private readonly mismatches = new MismatchFindings();
  private readonly exclude: RegExp[];
  private readonly ignoreHeaders: ReadonlySet<string>;
  private current: Finding[] = [];

  constructor(
    private readonly config: AuditConfig,
    private readonly pollIntervalSeconds: number,
    private readonly reader: RecordSampleReader,
  ) {
    this.exclude = config.exclude.map((source) => new RegExp(`^(?:${source})$`));
    this.ignoreHeaders = new Set(config.ignoreHeaders);
  }

  /** AUDIT_MISMATCH findings as of the latest audit (held between visits). */
  findings(): Finding[] {
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
    const cpu = process.cpuUsage();
    const now = snapshot.takenAt;
    const budget = Math.max(1, Math.round((this.config.recordsPerFlowPerMinute * this.pollIntervalSeconds) / 60));
    const plans = planAudit({ flows: snapshot.flows, syncs: history.offsetSyncs, focus: listFocusOffsets(alerts), budget, exclude: this.exclude }, this.cursors);
    if (plans.length === 0) {
      this.current = this.mismatches.update([], alerts, now);
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
    for (const [flow, samples] of perFlow) {
      this.tally.record(flow, samples, now, cost);
      countAuditMetrics(flow, countOutcomes(samples));
    }
    this.current = this.mismatches.update(all, alerts, now);
    log.debug({ cycle: snapshot.cycle, ...cost, audited: all.length }, "content audit done");
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

function sideKey(cluster: string, topic: string, partition: number): string {
  return `${cluster}|${topic}|${partition}`;
}

/**
 * The window's sampled source records (the first `count` at or after `from`, below MM2's position) with their
 * mappings, and where the target read starts: the lowest mapped offset, never below the target's log start.
 */
function mapWindow(flow: Flow, w: AuditWindow, read: FetchResult | undefined, history: CollectorHistory): MappedWindow | null {
  const p = flow.partitions.find((x) => x.topic === w.topic && x.partition === w.partition);
  if (read === undefined || isItemError(read) || p === undefined || p.targetLogEnd === null) return null;
  const epoch = selectLatestEpoch(history.offsetSyncs.get(flowPartitionKey(flow.id, w.topic, w.partition)) ?? []);
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
