// The content audit's cost per cycle at scale (issue 16): ContentAuditor.auditCycle over the synthetic world of
// pipeline-compute.ts (10,000 flow partitions by default, the sandbox's single-broker clusters), its records read
// from a stand-in broker that answers each Fetch partition like Kafka under the audit's byte cap (whole record
// batches from the requested offset, up to 16 KiB), with the same content on both sides at the synced offsets.
//   node_modules/.bin/tsx scripts/bench/audit-cost.ts --partitions 10000 --cycles 20 --records-per-minute 200
// Prints Fetch requests (one per leader broker per side, as readRecordSamples sends them), bytes read and CPU ms
// per cycle. No sandbox: the audit's requests do not grow with partitions, its planning and hashing do.
import { performance } from "node:perf_hooks";
import { readSyncHistories } from "@/lib/collector/sync-history";
import { tailBatchBytes } from "@/lib/collector/unreplicated-tail";
import { type CollectorHistory, flowPartitionKey, type PartitionState, type Snapshot } from "@/lib/collector/types";
import { configSchema } from "@/lib/config/schema";
import type { FetchedRecord, FetchRequestItem, FetchResult } from "@/lib/kafka";
import { ContentAuditor, type RecordSampleReader } from "@/lib/pipeline/content-audit";
import { parseFlags } from "../args";
import { readSnapshotFixture } from "./snapshot-fixture";
import { type Distribution, summarize } from "./stats";
import { createSyntheticWorld, cycleMs, snapshotCycle } from "./synthetic-world";

const flowId = "east->west";
/** A record of the stand-in broker: a 16-byte key and a 200-byte value (a small JSON event). */
const keyBytes = 16;
const valueBytes = 200;
/** Kafka's per-record overhead in a batch is a few bytes; 16 KiB of such records is about 75 of them. */
const recordsPerRead = Math.floor(tailBatchBytes / (keyBytes + valueBytes));

export interface AuditCostResult {
  partitions: number;
  cycles: number;
  recordsPerFlowPerMinute: number;
  windowsPerCycle: Distribution;
  auditedPerCycle: Distribution;
  fetchRequestsPerCycle: Distribution;
  bytesPerCycle: Distribution;
  cpuMsPerCycle: Distribution;
  wallMsPerCycle: Distribution;
  matched: number;
  notMatched: number;
}

/** The source record at `offset` of `topic`/`partition`: content named by the source offset, so copies compare equal. */
function makeRecord(topic: string, partition: number, sourceOffset: bigint, at: bigint): FetchedRecord {
  const name = `${topic}/${partition}/${sourceOffset}`;
  return {
    offset: at,
    timestamp: 1_700_000_000_000 + Number(sourceOffset % 1_000_000n),
    key: Buffer.from(name.padEnd(keyBytes, "k").slice(0, keyBytes)),
    value: Buffer.from(name.padEnd(valueBytes, "v").slice(0, valueBytes)),
    headers: [],
  };
}

/** A snapshot's partitions by cluster and `topic/partition`, built before each timed cycle (not the audit's cost). */
type PartitionIndex = Map<string, Map<string, PartitionState>>;

function indexPartitions(snapshot: Snapshot): PartitionIndex {
  return new Map(snapshot.clusters.map((c) => [c.alias, new Map(c.topics.flatMap((t) => t.partitions.map((p) => [`${t.name}/${p.partition}`, p] as const)))]));
}

/**
 * Answers like the brokers of the snapshot: one request per leader broker of the items; per partition up to 16 KiB of
 * records from the offset. A target offset holds the copy of source offset − (the partition's downstream − upstream).
 */
function createStandInReader(current: () => PartitionIndex, history: CollectorHistory, sourceAlias: string): RecordSampleReader {
  return {
    readRecordSamples: (cluster: string, items: readonly FetchRequestItem[]) => {
      const partitions = current().get(cluster) ?? new Map<string, PartitionState>();
      const leaders = new Set<number>();
      const results = new Map<string, FetchResult>();
      for (const item of items) {
        const p = partitions.get(`${item.topic}/${item.partition}`);
        if (p === undefined || p.logEnd === null || p.logStart === null) continue;
        leaders.add(p.leader ?? -1);
        const isTarget = cluster !== sourceAlias;
        const sourceTopic = isTarget ? item.topic.slice(sourceAlias.length + 1) : item.topic;
        const last = readSyncHistories(history.offsetSyncs).list(flowPartitionKey(flowId, sourceTopic, item.partition)).at(-1);
        const shift = isTarget && last !== undefined ? last.downstream - last.upstream : 0n;
        const records: FetchedRecord[] = [];
        for (let o = item.offset; o < p.logEnd && records.length < recordsPerRead; o++) records.push(makeRecord(sourceTopic, item.partition, o - shift, o));
        results.set(`${item.topic}/${item.partition}`, { records, highWatermark: p.logEnd, logStartOffset: p.logStart, nextOffset: item.offset + BigInt(records.length), controlBatches: 0 });
      }
      return Promise.resolve({ results, requests: leaders.size, error: null });
    },
  };
}

export async function measureAuditCost(partitions: number, cycles: number, recordsPerFlowPerMinute: number, log: (line: string) => void): Promise<AuditCostResult> {
  const fixture = readSnapshotFixture();
  const world = createSyntheticWorld(fixture.snapshot, fixture.history.offsetSyncs, flowId, partitions);
  const history: CollectorHistory = { offsetSyncs: world.syncs };
  const config = configSchema.parse({
    clusters: world.base.clusters.map((c, i) => ({ alias: c.alias, bootstrap: `127.0.0.1:${9092 + i}` })),
    pollIntervalSeconds: cycleMs / 1000,
    audit: { enabled: true, recordsPerFlowPerMinute },
  });
  let current: Snapshot = world.base;
  let index = indexPartitions(current);
  const kv = new Map<string, string>();
  const store = { getValue: (name: string) => Promise.resolve(kv.get(name) ?? null), setValue: (name: string, value: string) => Promise.resolve(void kv.set(name, value)) };
  const auditor = new ContentAuditor(config.audit, config.pollIntervalSeconds, createStandInReader(() => index, history, world.def.source), store);
  log(`${world.flowPartitions} flow partitions, ${recordsPerFlowPerMinute} records per flow per minute at a ${cycleMs / 1000} s poll`);
  const rows = { windows: [] as number[], audited: [] as number[], requests: [] as number[], bytes: [] as number[], cpu: [] as number[], wall: [] as number[] };
  let previous: Snapshot | null = null;
  for (let c = 1; c <= cycles; c++) {
    const now = world.base.takenAt + c * cycleMs;
    current = snapshotCycle(world, c, now, previous);
    index = indexPartitions(current);
    const started = performance.now();
    await auditor.auditCycle(current, history, []);
    rows.wall.push(performance.now() - started);
    const view = auditor.views(now).get(flowId);
    // The auditor measures its own CPU (process.cpuUsage around its fetches, mapping and hashing).
    const cost = view?.lastCycle?.at === now ? view.lastCycle.cost : { windows: 0, fetchRequests: 0, bytes: 0, cpuMs: 0 };
    rows.windows.push(cost.windows);
    rows.audited.push(view?.lastCycle?.at === now ? view.lastCycle.audited : 0);
    rows.requests.push(cost.fetchRequests);
    rows.bytes.push(cost.bytes);
    rows.cpu.push(cost.cpuMs);
    previous = current;
  }
  const totals = auditor.views(current.takenAt).get(flowId)?.totals;
  return {
    partitions: world.flowPartitions,
    cycles,
    recordsPerFlowPerMinute,
    windowsPerCycle: summarize(rows.windows),
    auditedPerCycle: summarize(rows.audited),
    fetchRequestsPerCycle: summarize(rows.requests),
    bytesPerCycle: summarize(rows.bytes),
    cpuMsPerCycle: summarize(rows.cpu),
    wallMsPerCycle: summarize(rows.wall),
    matched: totals?.matched ?? 0,
    notMatched: (totals?.audited ?? 0) - (totals?.matched ?? 0),
  };
}

/** The phase's lines in the bench report: the medians next to the poll's fixed request count. */
export function renderAuditCost(results: readonly AuditCostResult[]): string {
  const m = (d: Distribution) => d.median;
  return results
    .map(
      (r) =>
        `${r.partitions.toLocaleString("en-US")} partitions, ${r.recordsPerFlowPerMinute} records/flow/min: ${m(r.fetchRequestsPerCycle)} Fetch requests, ` +
        `${m(r.bytesPerCycle).toLocaleString("en-US")} bytes, ${m(r.cpuMsPerCycle)} ms CPU (p95 ${r.cpuMsPerCycle.p95}) per cycle; ` +
        `${m(r.auditedPerCycle)} records compared per cycle (${r.matched} matched, ${r.notMatched} not, ${r.cycles} cycles)`,
    )
    .join("\n");
}

async function main(): Promise<void> {
  const { flags } = parseFlags(process.argv.slice(2));
  const partitions = Number(flags.partitions ?? 10_000);
  const result = await measureAuditCost(partitions, Number(flags.cycles ?? 20), Number(flags["records-per-minute"] ?? 200), (line) => process.stdout.write(`${line}\n`));
  process.stdout.write(`audit cost: ${renderAuditCost([result])}\n${JSON.stringify(result)}\n`);
}

if (process.argv[1]?.endsWith("audit-cost.ts")) void main();
