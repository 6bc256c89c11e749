import { randomUUID } from "node:crypto";
import { readSyncHistories } from "@/lib/collector/sync-history";
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as getGroup } from "@/app/api/flows/[flow]/groups/[group]/route";
import { GET as getFailoverCsv } from "@/app/api/flows/[flow]/groups/[group]/failover.csv/route";
import { GET as getGroups } from "@/app/api/flows/[flow]/groups/route";
import { type Flow, flowPartitionKey, type Snapshot } from "@/lib/collector/types";
import { sleep } from "@/lib/sandbox/processes";
import { readSandboxState } from "@/lib/sandbox/state";
import { ensureTopics, fetchLogEnds, sandboxKafka } from "@/lib/sandbox/topics";
import { startWorkload, type Workload, workloadGroups } from "@/lib/sandbox/workload";
import { parseResetCsv } from "@/lib/translation";
import { callRoute, createSandboxRuntime, cycleUntil as cycleUntilSeen } from "../support/runtime";
import { compareCheckpoints } from "./compare-checkpoints";
import { consumeFromPlan, dryRunReset, readCheckpoints, readOffsetSyncs, readWorkloadTopic } from "./kafka-truth";

const state = readSandboxState();
const east = state.clusters.east!.bootstrap;
const west = state.clusters.west!.bootstrap;
const runtime = createSandboxRuntime(state);
const FLOW_ID = "east->west";
const flowParam = encodeURIComponent(FLOW_ID);
const topic = `xlate-${randomUUID().slice(0, 8)}`;
const targetTopic = `east.${topic}`;
const PARTITIONS = 12;
const RUN_MS = 65_000;
/**
 * Records per second. MM2 checkpoints a group's partition only when its translated downstream offset rises, i.e. when
 * a newer offset sync arrived. From 3.7.0 (KAFKA-15906, MirrorSourceTask.promoteDelayedOffsetSyncs) MM2 also writes
 * each partition's latest sync every offset.flush.interval.ms (5 s here), so 60 records/s give ~14 syncs per
 * partition in the run. MM2 3.6 and older write a sync only every offset.lag.max (100) records (or on a gap), which at
 * 60 records/s is ~4 per partition and 60-72 checkpoints in all; 240 records/s gives them ~13, about what 3.7+ gets.
 */
const RATE_PER_SECOND = writesSyncsOnFlush(state.kafkaVersion) ? 60 : 240;
const slow = workloadGroups.slow;

let workload: Workload | null = null;
let flow: Flow;
let syncsStart = 0n;
let checkpointsStart = 0n;

const cycleUntil = (check: (s: Snapshot) => boolean, what: string, timeoutMs: number) => cycleUntilSeen(runtime.collector, check, what, { timeoutMs });

/** True when MM2 of this Kafka version promotes its latest offset syncs at every offset flush (3.7.0+). */
function writesSyncsOnFlush(kafkaVersion: string): boolean {
  const [major = 0, minor = 0] = kafkaVersion.split(".").map(Number);
  return major > 3 || (major === 3 && minor >= 7);
}

async function logEndOf(bootstrap: string, name: string): Promise<bigint> {
  return (await fetchLogEnds(bootstrap, name).catch(() => new Map<number, { high: bigint }>())).get(0)?.high ?? 0n;
}

/** The failover CSV of a group, as the route serves it. */
async function fetchPlan(group: string, mode: string): Promise<{ status: number; body: string; headers: Headers }> {
  const url = `http://localhost/api/flows/${flowParam}/groups/${encodeURIComponent(group)}/failover.csv?mode=${mode}`;
  const response = await getFailoverCsv(new Request(url), { params: Promise.resolve({ flow: flowParam, group: encodeURIComponent(group) }) });
  return { status: response.status, body: await response.text(), headers: response.headers };
}

beforeAll(async () => {
  const first = await runtime.collector.runCycle();
  flow = first.flows.find((f) => f.id === FLOW_ID)!;
  expect(flow, "the sandbox's east->west flow").toBeDefined();
  // Everything this test's topic produces in MM2's internal topics comes after these offsets.
  [syncsStart, checkpointsStart] = await Promise.all([logEndOf(flow.offsetSyncs.cluster === "east" ? east : west, flow.offsetSyncs.topic), logEndOf(west, flow.checkpointsTopic)]);
  await ensureTopics(east, [{ topic, partitions: PARTITIONS }]);
  workload = await startWorkload({ bootstrap: east, ratePerSecond: RATE_PER_SECOND, topics: [{ topic, partitions: PARTITIONS }], run: `xlate-${topic}` });
  const started = Date.now();
  while (Date.now() - started < RUN_MS) {
    await runtime.collector.runCycle();
    await sleep(1000);
  }
  // Fix the groups' positions (the lagging gapwatch-slow above all), then let MM2 catch up and
  // checkpoint the final positions before any plan is taken.
  await workload.stop();
  workload = null;
}, 300_000);

afterAll(async () => {
  await workload?.stop();
  await runtime.collector.stop();
  await runtime.store.close();
});

describe("offset translation against real MirrorMaker 2", () => {
  it("the model translates every checkpointed upstream offset exactly as MM2's real checkpoints did", async () => {
    await cycleUntil((s) => {
      const parts = s.flows.find((f) => f.id === FLOW_ID)?.partitions.filter((p) => p.topic === topic) ?? [];
      return parts.length === PARTITIONS && parts.every((p) => p.sourceLogEnd !== null && p.targetLogEnd === p.sourceLogEnd);
    }, `${targetTopic} fully replicated`, 60_000);
    // One more offset flush (5 s) so the last records' delayed syncs are written, then read them.
    await sleep(6000);
    await runtime.collector.runCycle();
    const [syncsEnd, checkpointsEnd] = await Promise.all([logEndOf(east, flow.offsetSyncs.topic), logEndOf(west, flow.checkpointsTopic)]);
    const [syncs, checkpoints] = await Promise.all([
      readOffsetSyncs(state, east, flow.offsetSyncs.topic, syncsStart, Number(syncsEnd - syncsStart)),
      readCheckpoints(state, west, flow.checkpointsTopic, checkpointsStart, Number(checkpointsEnd - checkpointsStart)),
    ]);
    const history = readSyncHistories(runtime.collector.history().offsetSyncs);
    // The collector read exactly the syncs Kafka's OffsetSyncFormatter prints, in order.
    for (let p = 0; p < PARTITIONS; p++) {
      const fromKafka = syncs.filter((s) => s.value.topic === topic && s.value.partition === p).map((s) => `${s.value.upstream}:${s.value.downstream}`);
      const held = history.list(flowPartitionKey(FLOW_ID, topic, p)).map((s) => `${s.upstream}:${s.downstream}`);
      expect(held, `collector history of ${topic}/${p}`).toEqual(fromKafka.slice(0, held.length));
      expect(held.length, `${topic}/${p} syncs read`).toBeGreaterThan(3);
    }
    const mine = checkpoints.filter((c) => c.value.topic === targetTopic);
    const result = compareCheckpoints(topic, syncs, (p) => history.list(flowPartitionKey(FLOW_ID, topic, p)), mine);
    process.stdout.write(
      `[translation] ${mine.length} real checkpoints of ${targetTopic}: compared ${result.compared} pairs (${[...result.byGroup].map(([g, n]) => `${g}=${n}`).join(", ")}), excluded ${result.excluded}; ` +
        `${result.matched} of ${result.compared - result.ambiguous} unambiguous pairs equal the model's translation; ` +
        `${result.ambiguous - result.ambiguousOutside.length} of ${result.ambiguous} timing-ambiguous pairs equal one of the candidate prefixes' translations; ` +
        `a replay of the whole history, ignoring when each checkpoint was emitted, would get ${result.wrongWithFullHistory} unambiguous pairs wrong\n`,
    );
    for (const m of [...result.mismatches, ...result.ambiguousOutside].slice(0, 20)) process.stdout.write(`[translation] MISMATCH ${m}\n`);
    expect(result.compared).toBeGreaterThanOrEqual(100);
    expect(result.mismatches).toEqual([]);
    expect(result.ambiguousOutside).toEqual([]);
    expect(result.numericDiffers).toEqual([]);
    expect(result.byGroup.get(slow) ?? 0).toBeGreaterThan(0);
  });

  it("a lagging group resumed on the target from the precise plan skips nothing and re-reads fewer records than from MM2's", async () => {
    const admin = sandboxKafka(east).admin();
    await admin.connect();
    const fetched = await admin.fetchOffsets({ groupId: slow, topics: [topic] });
    await admin.disconnect();
    const committed = new Map(fetched[0]!.partitions.filter((p) => Number(p.offset) >= 0).map((p) => [p.partition, BigInt(p.offset)]));
    expect(committed.size).toBeGreaterThan(0);

    // Wait until MM2 owes the stopped group no newer checkpoint (its checkpoints are final).
    await runtime.collector.runCycle();
    const settled = async () => {
      const { status, body } = await callRoute(getGroup, `/api/flows/${flowParam}/groups/${slow}`, { flow: flowParam, group: slow });
      expect(status).toBe(200);
      const rows = (body.partitions as { topic: string; partition: number; committed: string; translation: { kind: string; downstream?: string }; checkpoint: { upstream: string; downstream: string } | null }[]).filter((r) => r.topic === topic);
      return rows.length === committed.size && rows.every((r) => r.committed === committed.get(r.partition)?.toString() && r.checkpoint !== null && (r.checkpoint.upstream === r.committed || BigInt(r.translation.downstream ?? "-1") <= BigInt(r.checkpoint.downstream)));
    };
    const deadline = Date.now() + 45_000;
    while (!(await settled())) {
      if (Date.now() > deadline) throw new Error(`MM2 did not checkpoint ${slow}'s final offsets within 45 s`);
      await sleep(2000);
      await runtime.collector.runCycle();
    }

    // In topic order, the CSV's order; one page holds the group's every partition (its plans' rows are the page's).
    const detail = await callRoute(getGroup, `/api/flows/${flowParam}/groups/${slow}?sort=topic`, { flow: flowParam, group: slow });
    expect(detail.body.page).toMatchObject({ sort: "topic", nextCursor: null });
    const planRows = detail.body.plans as Record<string, { rowCount: number; rows: { topic: string; partition: number; offset: string; rereadRecords: string | null }[] }>;
    for (const mode of ["mm2", "precise"]) expect(planRows[mode]!.rows).toHaveLength(planRows[mode]!.rowCount);
    const predict = (mode: string) => planRows[mode]!.rows.filter((r) => r.topic === targetTopic && committed.has(r.partition)).reduce((sum, r) => sum + BigInt(r.rereadRecords ?? "0"), 0n);
    const groupList = await callRoute(getGroups, `/api/flows/${flowParam}/groups`, { flow: flowParam });
    expect((groupList.body.groups as { group: string }[]).map((g) => g.group)).toContain(slow);
    const badMode = await fetchPlan(slow, "latest");
    expect(badMode.status).toBe(400);
    expect((JSON.parse(badMode.body) as { error: string }).error).toMatch(/must be one of "mm2", "precise", got "latest"/);
    expect((await fetchPlan(`no-such-group-${randomUUID().slice(0, 6)}`, "mm2")).status).toBe(404);

    const plans = { mm2: await fetchPlan(slow, "mm2"), precise: await fetchPlan(slow, "precise") };
    const dir = mkdtempSync(path.join(os.tmpdir(), "gw-failover-"));
    const source = await readWorkloadTopic(state, east, topic, Number([...(await fetchLogEnds(east, topic)).values()].reduce((s, o) => s + o.high, 0n)));
    const ends = new Map([...(await fetchLogEnds(west, targetTopic))].map(([p, o]) => [p, o.high]));
    const counts: Record<string, { reread: number; skipped: number; duplicates: number; predicted: bigint }> = {};
    for (const [mode, plan] of Object.entries(plans)) {
      expect(plan.status, `${mode} plan: ${plan.body}`).toBe(200);
      expect(plan.headers.get("content-type")).toMatch(/^text\/csv/);
      expect(plan.headers.get("content-disposition")).toMatch(/^attachment; filename=".+\.csv"$/);
      const rows = parseResetCsv(plan.body).filter((r) => r.topic === targetTopic && committed.has(r.partition));
      // Kafka's own kafka-consumer-groups parses the file and would set exactly these offsets.
      const file = path.join(dir, `${mode}.csv`);
      writeFileSync(file, plan.body);
      const dryRun = await dryRunReset(state, west, `it-dry-${mode}-${randomUUID().slice(0, 6)}`, file);
      for (const r of rows) expect(dryRun.get(`${targetTopic}/${r.partition}`), `${mode} dry run of ${targetTopic}/${r.partition}`).toBe(r.offset);

      const read = await consumeFromPlan(west, `it-failover-${mode}-${randomUUID().slice(0, 8)}`, targetTopic, new Map(rows.map((r) => [r.partition, r.offset])), ends);
      let reread = 0;
      let skipped = 0;
      let duplicates = 0;
      for (const [partition, position] of committed) {
        const records = source.filter((r) => r.partition === partition);
        const consumed = new Set(records.filter((r) => r.offset < position).map((r) => r.seq));
        const notConsumed = records.filter((r) => r.offset >= position).map((r) => r.seq);
        const readSeqs = (read.get(partition) ?? []).filter((r) => r.run === `xlate-${topic}`).map((r) => r.seq);
        const seen = new Set(readSeqs);
        skipped += notConsumed.filter((seq) => !seen.has(seq)).length;
        // Re-read: the target records read before the first one the group had not consumed, counted as records
        // (the prediction is in target offsets): MM2 copies at least once, so a record it copied twice under load
        // is re-read twice.
        const firstNew = readSeqs.findIndex((seq) => !consumed.has(seq));
        const before = firstNew === -1 ? readSeqs : readSeqs.slice(0, firstNew);
        reread += before.length;
        duplicates += before.length - new Set(before).size;
      }
      const jsonRows = planRows[mode]!.rows.filter((r) => r.topic === targetTopic && committed.has(r.partition));
      expect(rows.map((r) => `${r.partition}:${r.offset}`), `${mode} CSV = JSON plan`).toEqual(jsonRows.map((r) => `${r.partition}:${r.offset}`));
      counts[mode] = { reread, skipped, duplicates, predicted: predict(mode) };
    }
    process.stdout.write(
      `[failover] ${slow} on ${topic}: precise plan re-read ${counts.precise!.reread} records (predicted ${counts.precise!.predicted}), skipped ${counts.precise!.skipped}; ` +
        `mm2 plan re-read ${counts.mm2!.reread} (predicted ${counts.mm2!.predicted}), skipped ${counts.mm2!.skipped}; ` +
        `records MM2 copied twice among them: ${counts.mm2!.duplicates}\n`,
    );
    expect(counts.precise!.skipped).toBe(0);
    expect(counts.precise!.reread).toBeLessThan(counts.mm2!.reread);
    expect(BigInt(counts.precise!.reread)).toBe(counts.precise!.predicted);
    expect(BigInt(counts.mm2!.reread)).toBe(counts.mm2!.predicted);
  });
});
