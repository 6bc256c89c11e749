// How often Gapwatch's offset mapping and translation model are exactly right (issue 16 item 4), measured by content
// on the running sandbox (GAPWATCH_HOME's, through the slot script; `npm run sandbox -- up` first):
//   node_modules/.bin/tsx scripts/bench/audit-accuracy.ts --seconds 90
// Runs the sandbox workload (unique values: topic, partition, seq, run, time) and Gapwatch's collector at a 5 s poll.
// Mapping: each cycle, up to 5 copied source records per flow partition are mapped through the exact mapping
// (lib/audit mapSourceOffset, the latest sync epoch) and the target record at the mapped offset is compared byte for
// byte. Translation: at the end, for each group partition Gapwatch translates, the ideal target offset is the one
// after the copy of the group's last consumed record (committed − 1), found on the target by content; the model of
// MM2's translation is exact when equal, conservative (re-reads) when below, skipping when above; Gapwatch's own ideal
// offset (the exact mapping of the committed offset) is exact when equal.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { mapSourceOffset } from "@/lib/audit";
import type { Collector } from "@/lib/collector/collector";
import { readSyncHistories } from "@/lib/collector/sync-history";
import { flowPartitionKey, type FlowPartition, type Snapshot } from "@/lib/collector/types";
import { parseConfigText } from "@/lib/config";
import { type FetchedRecord, type FetchRequestItem, isItemError } from "@/lib/kafka";
import { selectLatestEpoch } from "@/lib/mm2";
import { createCollectingRuntime } from "@/lib/pipeline/runtime";
import { sleep } from "@/lib/sandbox/processes";
import { readSandboxState } from "@/lib/sandbox/state";
import { startWorkload } from "@/lib/sandbox/workload";
import type { GroupTranslation, PartitionTranslation } from "@/lib/translation";
import { parseFlags } from "../args";

const flowId = "east->west";
const pollMs = 5000;
const samplesPerPartition = 5;

interface Tally {
  mapped: number;
  exact: number;
  /** Sampled records whose mapped target offset held another record: source offset → mapped target. */
  wrong: string[];
  groupPartitions: number;
  translationExact: number;
  conservative: number[];
  skipping: number[];
  /** Group partitions not judged: nothing consumed or not copied yet, or the copy not found near the translation. */
  unjudged: number;
  /** Gapwatch's ideal offset (exact mapping of the committed offset): exact when equal to the content truth. */
  idealExact: number;
  /** Its ideal was only a bracket holding the truth, or wrong (offsets as source@committed→ideal/truth). */
  idealBracketed: number;
  idealWrong: string[];
}

const sameRecord = (a: FetchedRecord, b: FetchedRecord) => (a.value?.equals(b.value ?? Buffer.alloc(0)) ?? b.value === null) && (a.key?.equals(b.key ?? Buffer.alloc(0)) ?? b.key === null);

/** Reads one record per item (the first at or after its offset) on a cluster, by `topic/partition/offset`. */
async function readRecords(collector: Collector, cluster: string, items: FetchRequestItem[]): Promise<Map<string, FetchedRecord[]>> {
  const out = new Map<string, FetchedRecord[]>();
  // One Fetch names a partition once: read the distinct partitions in rounds.
  const rounds: FetchRequestItem[][] = [];
  for (const item of items) {
    const round = rounds.find((r) => !r.some((x) => x.topic === item.topic && x.partition === item.partition));
    if (round) round.push(item);
    else rounds.push([item]);
  }
  for (const round of rounds) {
    const read = await collector.readRecordSamples(cluster, round);
    for (const item of round) {
      const result = read.results.get(`${item.topic}/${item.partition}`);
      if (result !== undefined && !isItemError(result)) out.set(`${item.topic}/${item.partition}/${item.offset}`, result.records);
    }
  }
  return out;
}

/** Copied source offsets of a partition to sample: spread over [max(log start, first sync of the epoch), MM2's position). */
function pickOffsets(p: FlowPartition, first: bigint | undefined): bigint[] {
  if (p.mm2Position === null || p.sourceLogStart === null || first === undefined) return [];
  const low = p.sourceLogStart > first ? p.sourceLogStart : first;
  const span = p.mm2Position - low;
  if (span <= 0n) return [];
  return Array.from({ length: samplesPerPartition }, () => low + BigInt(Math.floor(Math.random() * Number(span))));
}

async function measureMapping(collector: Collector, snapshot: Snapshot, tally: Tally): Promise<void> {
  const flow = snapshot.flows.find((f) => f.id === flowId);
  if (!flow) return;
  const history = readSyncHistories(collector.history().offsetSyncs);
  const wanted: { p: FlowPartition; offset: bigint }[] = [];
  for (const p of flow.partitions) {
    if (p.unknown !== null || p.targetLogEnd === null) continue;
    const epoch = selectLatestEpoch(history.list(flowPartitionKey(flowId, p.topic, p.partition)));
    for (const offset of pickOffsets(p, epoch[0]?.upstream)) wanted.push({ p, offset });
  }
  const sources = await readRecords(collector, flow.source, wanted.map(({ p, offset }) => ({ topic: p.topic, partition: p.partition, offset })));
  const checks: { record: FetchedRecord; p: FlowPartition; target: bigint }[] = [];
  for (const { p, offset } of wanted) {
    const record = sources.get(`${p.topic}/${p.partition}/${offset}`)?.find((r) => r.offset === offset);
    if (!record) continue;
    const epoch = selectLatestEpoch(history.list(flowPartitionKey(flowId, p.topic, p.partition)));
    const mapping = mapSourceOffset(epoch, offset, p.targetDensityIssue === null, p.targetLogEnd!);
    if (mapping.kind === "exact") checks.push({ record, p, target: mapping.target });
  }
  const targets = await readRecords(collector, flow.target, checks.map(({ p, target }) => ({ topic: p.targetTopic, partition: p.partition, offset: target })));
  for (const { record, p, target } of checks) {
    const there = targets.get(`${p.targetTopic}/${p.partition}/${target}`)?.find((r) => r.offset === target);
    if (there === undefined) continue; // not read (retention, an error): no evidence either way
    tally.mapped++;
    if (sameRecord(record, there)) tally.exact++;
    else tally.wrong.push(`${p.topic}/${p.partition}@${record.offset}→${target}`);
  }
}

async function measureTranslation(collector: Collector, snapshot: Snapshot, groups: readonly GroupTranslation[], tally: Tally): Promise<void> {
  const flow = snapshot.flows.find((f) => f.id === flowId);
  if (!flow) return;
  const rows = new Map(flow.partitions.map((p) => [`${p.topic}/${p.partition}`, p]));
  const judged: { p: FlowPartition; consumed: bigint; model: bigint; ideal: PartitionTranslation["ideal"] }[] = [];
  for (const g of groups) {
    for (const t of g.partitions) {
      const p = rows.get(`${t.topic}/${t.partition}`);
      if (t.translation.kind !== "translated" || !p) continue;
      tally.groupPartitions++;
      const consumed = t.committed - 1n;
      if (p.mm2Position === null || p.sourceLogStart === null || consumed < p.sourceLogStart || consumed >= p.mm2Position) tally.unjudged++;
      else judged.push({ p, consumed, model: t.translation.downstream, ideal: t.ideal });
    }
  }
  const sources = await readRecords(collector, flow.source, judged.map(({ p, consumed }) => ({ topic: p.topic, partition: p.partition, offset: consumed })));
  const from = (j: (typeof judged)[number]) => {
    const low = j.model - 25n;
    return j.p.targetLogStart !== null && low < j.p.targetLogStart ? j.p.targetLogStart : low < 0n ? 0n : low;
  };
  const targets = await readRecords(collector, flow.target, judged.map((j) => ({ topic: j.p.targetTopic, partition: j.p.partition, offset: from(j) })));
  for (const j of judged) {
    const record = sources.get(`${j.p.topic}/${j.p.partition}/${j.consumed}`)?.find((r) => r.offset === j.consumed);
    const copy = record && targets.get(`${j.p.targetTopic}/${j.p.partition}/${from(j)}`)?.find((r) => sameRecord(record, r));
    if (!copy) {
      tally.unjudged++;
      continue;
    }
    const ideal = copy.offset + 1n;
    if (j.ideal.kind === "exact" && j.ideal.downstream === ideal) tally.idealExact++;
    else if (j.ideal.kind === "bracket" && j.ideal.low <= ideal && ideal <= j.ideal.high) tally.idealBracketed++;
    else tally.idealWrong.push(`${j.p.topic}/${j.p.partition}@${j.consumed + 1n}→${j.ideal.kind === "exact" ? j.ideal.downstream : j.ideal.kind}/${ideal}`);
    if (j.model === ideal) tally.translationExact++;
    else if (j.model < ideal) tally.conservative.push(Number(ideal - j.model));
    else tally.skipping.push(Number(j.model - ideal));
  }
}

const median = (xs: number[]) => (xs.length === 0 ? 0 : [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!);

async function main(): Promise<void> {
  const { flags } = parseFlags(process.argv.slice(2));
  const seconds = Number(flags.seconds ?? 90);
  const state = readSandboxState();
  const dir = mkdtempSync(path.join(os.tmpdir(), "gapwatch-accuracy-"));
  const clusters = Object.entries(state.clusters).map(([alias, c]) => `  - alias: ${alias}\n    bootstrap: ${c.bootstrap}`).join("\n");
  const yaml = `clusters:\n${clusters}\nconnect:\n  - name: sandbox\n    url: ${state.connect!.url}\npollIntervalSeconds: ${pollMs / 1000}\nconfigRefreshCycles: 1\n`;
  writeFileSync(path.join(dir, "gapwatch.config.yaml"), yaml);
  const config = parseConfigText(yaml, path.join(dir, "gapwatch.config.yaml"), { ...process.env, GAPWATCH_DB: path.join(dir, "gapwatch.db") });
  const runtime = createCollectingRuntime(config, "all");
  const workload = await startWorkload({ bootstrap: state.clusters.east!.bootstrap, run: `accuracy-${Date.now()}` });
  const tally: Tally = { mapped: 0, exact: 0, wrong: [], groupPartitions: 0, translationExact: 0, conservative: [], skipping: [], unjudged: 0, idealExact: 0, idealBracketed: 0, idealWrong: [] };
  const deadline = Date.now() + seconds * 1000;
  let snapshot: Snapshot | null = null;
  try {
    while (Date.now() < deadline) {
      const started = Date.now();
      snapshot = await runtime.collector.runCycle();
      await measureMapping(runtime.collector, snapshot, tally);
      await sleep(Math.max(0, pollMs - (Date.now() - started)));
    }
    if (snapshot !== null) await measureTranslation(runtime.collector, snapshot, runtime.pipeline.latest()?.translations.get(flowId)?.groups ?? [], tally);
  } finally {
    await workload.stop();
    await runtime.collector.stop();
    runtime.alerts.stop();
    await runtime.store.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const judged = tally.groupPartitions - tally.unjudged;
  process.stdout.write(
    `mapping exact for ${tally.exact} of ${tally.mapped} sampled records; translation (MM2's rule, as modelled) exact for ${tally.translationExact} of ${judged} group-partitions ` +
      `(the rest conservative by ${median(tally.conservative)} records median${tally.skipping.length > 0 ? `; ${tally.skipping.length} skipping, by ${median(tally.skipping)} median` : ""}; ` +
      `${tally.unjudged} of ${tally.groupPartitions} not judged); Gapwatch's ideal offset exact for ${tally.idealExact} of ${judged} ` +
      `(${tally.idealBracketed} a bracket holding it, ${tally.idealWrong.length} wrong)\n`,
  );
  process.stdout.write(`${JSON.stringify({ seconds, ...tally, wrong: tally.wrong.slice(0, 20) })}\n`);
  process.exit(0);
}

void main();
