import { randomUUID } from "node:crypto";
import { readSyncHistories } from "@/lib/collector/sync-history";
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FlowAuditView } from "@/lib/audit";
import type { Snapshot } from "@/lib/collector/types";
import { flowPartitionKey } from "@/lib/collector/types";
import { selectLatestEpoch } from "@/lib/mm2";
import { getRuntime } from "@/lib/pipeline/runtime";
import { readPartition } from "@/lib/sandbox/kafka-cli";
import { runLag, runPurge, runResume } from "@/lib/sandbox/scenarios";
import { readSandboxState } from "@/lib/sandbox/state";
import { ensureTopics, fetchLogEnds, sandboxKafka } from "@/lib/sandbox/topics";
import { readFlowAudit } from "@/lib/views/audit";
import { callRoute, cycleUntil } from "../support/runtime";
import { GET as getAudit } from "@/app/api/flows/[flow]/audit/route";

/**
 * The content audit against the real sandbox: every value names its source offset (`<tag>-<partition>-<offset>`),
 * so the ground truth of what the target holds where is known. A clean run must compare every replicated partition
 * with 0 mismatches; records written into the target topic by a second producer while MM2 is paused must be reported
 * "not from this source" at their exact target offsets, and MM2's copies of the records after them as matched;
 * records with a header, which the sandbox's Connect-mode MM2 (no header.converter set, so the worker's
 * SimpleHeaderConverter) rewrites as Base64 text, must raise AUDIT_MISMATCH with their exact offsets; records purged
 * before MM2 copied them must be confirmed missing on the target with the DATA_LOSS alert's exact range.
 */
const state = readSandboxState();
const east = state.clusters.east!.bootstrap;
const west = state.clusters.west!.bootstrap;
const FLOW = "east->west";
const topic = `audittest-${randomUUID().slice(0, 8)}`;
const remote = `east.${topic}`;
const partitions = 3;

// A budget that reaches every partition of the flow each cycle (20 records a window, 5 s polls).
const dir = mkdtempSync(path.join(os.tmpdir(), "gapwatch-audit-"));
const clusters = Object.entries(state.clusters).map(([alias, c]) => `  - alias: ${alias}\n    bootstrap: ${c.bootstrap}`).join("\n");
writeFileSync(
  path.join(dir, "gapwatch.config.yaml"),
  `clusters:\n${clusters}\nconnect:\n  - name: sandbox\n    url: ${state.connect.url}\npollIntervalSeconds: 5\nconfigRefreshCycles: 1\naudit:\n  enabled: true\n  recordsPerFlowPerMinute: 12000\n`,
);
process.env.GAPWATCH_CONFIG = path.join(dir, "gapwatch.config.yaml");
process.env.GAPWATCH_DB = path.join(dir, "gapwatch.db");
const runtime = getRuntime();

const auditOf = (): FlowAuditView | null => runtime.pipeline.latest()?.audit.get(FLOW) ?? null;
const rowOf = (s: Snapshot, partition: number) => s.flows.find((f) => f.id === FLOW)?.partitions.find((p) => p.topic === topic && p.partition === partition);

async function produce(bootstrap: string, name: string, partition: number, from: number, count: number, tag: string, headers?: Record<string, string>): Promise<void> {
  const producer = sandboxKafka(bootstrap).producer();
  await producer.connect();
  const messages = Array.from({ length: count }, (_, i) => ({ partition, key: `k-${from + i}`, value: `${tag}-${partition}-${from + i}`, headers }));
  await producer.send({ topic: name, acks: -1, messages });
  await producer.disconnect();
}

/** Flow partitions with records MM2 copied since the first offset sync of their latest epoch (what the audit can map). */
function listAuditable(s: Snapshot): string[] {
  const flow = s.flows.find((f) => f.id === FLOW)!;
  const history = readSyncHistories(runtime.collector.history().offsetSyncs);
  return flow.partitions
    .filter((p) => {
      const epoch = selectLatestEpoch(history.list(flowPartitionKey(FLOW, p.topic, p.partition)));
      if (p.unknown !== null || p.mm2Position === null || p.sourceLogStart === null || epoch.length === 0) return false;
      const low = p.sourceLogStart > epoch[0]!.upstream ? p.sourceLogStart : epoch[0]!.upstream;
      return low < p.mm2Position;
    })
    .map((p) => `${p.topic}`);
}

/** The audit's problems with offsets and differing fields (never payloads), and the partition's syncs, for failure messages. */
function describeProblems(audit: FlowAuditView | null): string {
  if (audit === null) return "no audit yet";
  const problems = audit.problems.map((p) => `${p.outcome} ${p.topic}/${p.partition} ${p.sourceOffset}→${p.targetOffsets.join("/")} ${p.mismatch ? JSON.stringify(p.mismatch) : ""}`);
  const syncs = [...new Set(audit.problems.map((p) => flowPartitionKey(FLOW, p.topic, p.partition)))].map(
    (k) => `${k}: ${readSyncHistories(runtime.collector.history().offsetSyncs).list(k).slice(-8).map((x) => `(${x.upstream},${x.downstream})`).join(" ")}`,
  );
  return `${problems.join("; ")} | syncs ${syncs.join("; ")}`;
}

function describeRow(s: Snapshot): string {
  const row = rowOf(s, 0);
  return row ? `mm2 ${row.mm2Position} (${row.positionSource}) target ${row.targetLogEnd} latest sync ${row.latestSync?.upstream}/${row.latestSync?.downstream} density ${row.targetDensityIssue}` : "no row";
}

beforeAll(async () => {
  await ensureTopics(east, [{ topic, partitions }]);
  for (let p = 0; p < partitions; p++) await produce(east, topic, p, 0, 100, "source");
  await cycleUntil(runtime.collector, (s) => [0, 1, 2].every((p) => rowOf(s, p)?.targetLogEnd === 100n && rowOf(s, p)?.lag === 0n), `${topic} replicated`, { timeoutMs: 90_000 });
});

afterAll(async () => {
  await runtime.collector.stop();
  runtime.alerts.stop();
  await runtime.store.close();
});

describe("the content audit", () => {
  it("compares every replicated partition on a clean run with 0 mismatches, within one Fetch per broker per side", { timeout: 120_000 }, async () => {
    const started = Date.now();
    const covered = (s: Snapshot) => {
      const audit = auditOf();
      if (audit === null) return false;
      const byTopic = new Map(audit.topics.map((t) => [t.topic, t.partitions]));
      const wanted = new Map<string, number>();
      for (const t of listAuditable(s)) wanted.set(t, (wanted.get(t) ?? 0) + 1);
      return wanted.size > 0 && [...wanted].every(([t, n]) => byTopic.get(t) === n);
    };
    await cycleUntil(runtime.collector, covered, "every replicated partition audited", { timeoutMs: 60_000 });
    const audit = auditOf()!;
    const mine = audit.topics.find((t) => t.topic === topic)!;
    expect(mine.partitions).toBe(partitions);
    expect([audit.totals.mismatched, audit.totals.missing, audit.totals.foreign], describeProblems(audit)).toEqual([0, 0, 0]);
    expect(audit.totals.matched).toBeGreaterThanOrEqual(3 * 20);
    expect(audit.verifiedLastHour).toBe(audit.totals.matched + audit.totals.duplicates);
    // Two single-broker clusters: one Fetch to each (no leader moved, so no Metadata), whatever the partitions.
    const cost = audit.lastCycle!.cost;
    expect(cost.fetchRequests).toBe(2);
    expect(runtime.alerts.list({}).filter((a) => a.type === "AUDIT_MISMATCH")).toEqual([]);
    const api = await callRoute(getAudit, `/api/flows/${encodeURIComponent(FLOW)}/audit`, { flow: encodeURIComponent(FLOW) });
    expect(api.status).toBe(200);
    expect(api.body).toMatchObject({ flow: FLOW, enabled: true, recordsPerFlowPerMinute: 12000 });
    expect(JSON.stringify(api.body)).not.toContain("source-0-");
    process.stdout.write(`content audit clean run: ${JSON.stringify({ seconds: (Date.now() - started) / 1000, cost, windows: cost.windows, totals: audit.totals })}\n`);
  });

  it("reports records a second producer wrote into the target topic as not from this source, at their exact offsets", { timeout: 120_000 }, async () => {
    await runLag(state, { seconds: 0 });
    try {
      await produce(east, topic, 0, 100, 5, "source");
      await produce(west, remote, 0, 0, 3, "foreign");
      expect([(await fetchLogEnds(east, topic)).get(0)!.high, (await fetchLogEnds(west, remote)).get(0)!.high]).toEqual([105n, 103n]);
    } finally {
      await runResume(state);
    }
    await cycleUntil(runtime.collector, (s) => rowOf(s, 0)?.targetLogEnd === 108n && rowOf(s, 0)?.lag === 0n, "the 5 records copied after the foreign ones", { timeoutMs: 60_000 });
    const foreignSeen = () => (auditOf()?.problems ?? []).filter((p) => p.topic === topic && p.partition === 0 && p.outcome === "foreign");
    await cycleUntil(runtime.collector, () => foreignSeen().length >= 3, "the foreign records reported", { timeoutMs: 60_000, describe: (s) => `${describeRow(s)}; ${describeProblems(auditOf())}` });
    // The foreign records took target offsets 100–102; MM2's copies of source 100–104 are at 103–107.
    expect([...new Set(foreignSeen().map((p) => p.targetOffsets[0]))].sort()).toEqual([100n, 101n, 102n]);
    const view = readFlowAudit(FLOW).audit!;
    expect(view.totals.mismatched).toBe(0);
    expect(view.problems.filter((p) => p.topic === topic && p.outcome !== "foreign")).toEqual([]);
    expect(runtime.alerts.list({}).filter((a) => a.type === "AUDIT_MISMATCH")).toEqual([]);
    const cost = view.lastCycle!.cost;
    process.stdout.write(`content audit after the second writer: ${JSON.stringify({ cost, totals: view.totals })}\n`);
  });

  it("raises AUDIT_MISMATCH with exact offsets for records whose headers MM2 rewrote on the target", { timeout: 120_000 }, async () => {
    await produce(east, topic, 1, 100, 3, "source", { origin: "source" });
    const raised = () => runtime.alerts.list({ type: "AUDIT_MISMATCH", state: "firing" }).find((a) => a.topic === topic && a.partition === 1);
    await cycleUntil(runtime.collector, () => raised() !== undefined, "AUDIT_MISMATCH for the records with a header", { timeoutMs: 60_000, describe: () => describeProblems(auditOf()) });
    const alert = raised()!;
    // One-to-one copy: source offsets 100–102 are target offsets 100–102; only the header value differs ("source" became "c291cmNl").
    expect(alert).toMatchObject({ severity: "critical", flow: FLOW, evidence: { fields: "headers", sourceOffset: "100", targetOffset: "100", sourceValueLength: 12, targetValueLength: 12 } });
    // The records compared in the sighting that raised it: from 100, those the offset syncs read by then prove (102 may
    // still lie past the newest sync), each at the same target offset.
    const sources = String(alert.evidence.sourceOffsets).split(",");
    expect(sources[0]).toBe("100");
    expect(sources.every((o) => ["100", "101", "102"].includes(o))).toBe(true);
    expect(alert.evidence.targetOffsets).toBe(alert.evidence.sourceOffsets);
    expect(alert.summary).toContain("header.converter=org.apache.kafka.connect.converters.ByteArrayConverter");
    // The tally counts at least the records of that sighting (102 joins once a sync past it is read: not awaited here).
    expect(auditOf()!.topics.find((t) => t.topic === topic)!.mismatched).toBeGreaterThanOrEqual(sources.length);
  });

  it("confirms a purge's lost range missing on the target with the exact offsets Kafka's own tools read", { timeout: 150_000 }, async () => {
    // Partition 2 holds source 0–99, copied one to one. The purge deletes 100–149 before MM2 copies them.
    const report = await runPurge(state, { topic, partition: 2, records: 50, resume: true });
    expect([report.firstLostOffset, report.lastLostOffset, report.newLogStart]).toEqual(["100", "149", "150"]);
    // Records after the range: MM2 copies them from the new log start, with a sync at once after the gap.
    await produce(east, topic, 2, 150, 5, "after");
    const confirmed = () => auditOf()?.confirmedLosses.find((l) => l.topic === topic && l.partition === 2);
    await cycleUntil(runtime.collector, () => confirmed() !== undefined, "the lost range confirmed missing", {
      timeoutMs: 90_000,
      describe: (s) => `${JSON.stringify(runtime.alerts.list({ type: "DATA_LOSS" }).map((a) => a.evidence))}; row ${rowOf(s, 2)?.mm2Position}/${rowOf(s, 2)?.targetLogEnd}`,
    });
    expect(confirmed()).toMatchObject({ flow: FLOW, firstLostOffset: 100n, lastLostOffset: 149n, targetOffset: 100n });
    const loss = runtime.alerts.list({ type: "DATA_LOSS", state: "firing" }).find((a) => a.topic === topic && a.partition === 2)!;
    expect([loss.evidence.firstLostOffset, loss.evidence.lastLostOffset]).toEqual([report.firstLostOffset, report.lastLostOffset]);
    // Kafka's own tools: the source starts at 150 now; the target holds source 99 at 99 and source 150 right after it.
    expect((await fetchLogEnds(east, topic)).get(2)!.low).toBe(150n);
    expect((await readPartition(state, west, remote, 2, 99n, 2)).map((r) => [r.offset, r.value])).toEqual([[99n, "source-2-99"], [100n, "after-2-150"]]);
    // The API shows it with decimal offsets; no mismatch is raised on the partition.
    const api = await callRoute(getAudit, `/api/flows/${encodeURIComponent(FLOW)}/audit`, { flow: encodeURIComponent(FLOW) });
    expect(JSON.stringify(api.body)).toContain(`"firstLostOffset":"100","lastLostOffset":"149","targetOffset":"100"`);
    expect(runtime.alerts.list({ type: "AUDIT_MISMATCH" }).filter((a) => a.partition === 2)).toEqual([]);
  });
});
