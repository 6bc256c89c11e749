import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { auditStateKey } from "@/lib/audit";
import { parseConfigText } from "@/lib/config";
import type { FetchedRecord, FetchRequestItem } from "@/lib/kafka";
import { ContentAuditor, type RecordSampleReader } from "@/lib/pipeline/content-audit";
import { createSqliteStore, type Store } from "@/lib/store";
import { copyAt, makeRecord } from "../audit/fixtures";
import { makeFlowPartition, makeHistory, makeSnapshot, T0 } from "../detect/fixtures";

const config = parseConfigText("clusters:\n  - alias: east\n    bootstrap: east:9092\n  - alias: west\n    bootstrap: west:9092\naudit:\n  recordsPerFlowPerMinute: 120\n", "test.yaml", {});

/** Answers like a broker: every record of the cluster's partition from the requested offset on; counts one request per call. */
function createReader(logs: Record<string, Record<string, FetchedRecord[]>>, calls: string[]): RecordSampleReader {
  return {
    readRecordSamples: (cluster: string, items: readonly FetchRequestItem[]) => {
      calls.push(`${cluster} ${items.map((i) => `${i.topic}/${i.partition}@${i.offset}`).join(",")}`);
      const results = new Map(items.map((i) => {
        const records = (logs[cluster]?.[`${i.topic}/${i.partition}`] ?? []).filter((r) => r.offset >= i.offset);
        return [`${i.topic}/${i.partition}`, { records, highWatermark: 1000n, logStartOffset: 0n, nextOffset: (records.at(-1)?.offset ?? i.offset - 1n) + 1n, controlBatches: 0 }];
      }));
      return Promise.resolve({ results, requests: 1, error: null });
    },
  };
}

/** A kv store in memory that counts writes. */
function createKv(): Pick<Store, "getValue" | "setValue"> & { values: Map<string, string>; writes: number } {
  const kv = {
    values: new Map<string, string>(),
    writes: 0,
    getValue: (name: string) => Promise.resolve(kv.values.get(name) ?? null),
    setValue: (name: string, value: string) => {
      kv.writes++;
      kv.values.set(name, value);
      return Promise.resolve();
    },
  };
  return kv;
}

// orders/2 of east->west: one-to-one syncs (0,0) and (500,500); MM2 copied everything below 1000 one to one.
const source = Array.from({ length: 40 }, (_, i) => makeRecord(480n + BigInt(i)));
const altered = source.map((r) => (r.offset === 495n ? { ...copyAt(r, 495n), value: Buffer.from("order-4X5") } : copyAt(r, r.offset)));
const snapshot = makeSnapshot({ partitions: [makeFlowPartition({ mm2Position: 1000n, targetLogEnd: 1000n })] });

describe("ContentAuditor", () => {
  let dir = "";
  afterEach(() => {
    if (dir !== "") rmSync(dir, { recursive: true, force: true });
    dir = "";
  });

  it("reads each side once, compares the sampled records at their mapped offsets and raises AUDIT_MISMATCH for an altered copy", async () => {
    const calls: string[] = [];
    const auditor = new ContentAuditor(config.audit, 10, createReader({ east: { "orders/2": source }, west: { "east.orders/2": altered } }, calls), createKv());
    await auditor.auditCycle(snapshot, makeHistory([[0, 0], [500, 500]]), []);
    // Budget 120 a minute at a 10 s poll: 20 records, around the newest sync (490–509).
    expect(calls).toEqual(["east orders/2@490", "west east.orders/2@490"]);
    const view = auditor.views(T0).get("east->west")!;
    expect([view.totals.audited, view.totals.matched, view.totals.mismatched]).toEqual([20, 19, 1]);
    // Each side returned 490–519 (30 records of a 5-byte key and a 9-byte value): the fake broker has no byte limit.
    expect(view.lastCycle?.cost).toMatchObject({ windows: 1, fetchRequests: 2, bytes: 2 * 30 * (5 + 9) });
    expect((await auditor.findings()).map((f) => [f.type, f.severity, f.evidence.sourceOffset, f.evidence.targetOffset, f.evidence.firstValueDifference])).toEqual([
      ["AUDIT_MISMATCH", "critical", "495", "495", 7],
    ]);
  });

  it("keeps the counters, coverage and held AUDIT_MISMATCH in the store across a restart, written at a bounded rate", async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), "gapwatch-audit-state-"));
    const store = createSqliteStore(path.join(dir, "gapwatch.db"));
    const logs = { east: { "orders/2": source }, west: { "east.orders/2": altered } };
    const first = new ContentAuditor(config.audit, 10, createReader(logs, []), store);
    await first.auditCycle(snapshot, makeHistory([[0, 0], [500, 500]]), []);
    // The new AUDIT_MISMATCH is written at once.
    expect(await store.getValue(auditStateKey)).not.toBeNull();
    const before = first.views(T0).get("east->west")!;
    await store.close();

    const reopened = createSqliteStore(path.join(dir, "gapwatch.db"));
    const second = new ContentAuditor(config.audit, 10, createReader(logs, []), reopened);
    // Before any audit of its own: the held finding is there for the first cycle's alerts, and the view as it was.
    expect((await second.findings()).map((f) => [f.key, f.evidence.sourceOffset, f.evidence.targetOffset])).toEqual([["AUDIT_MISMATCH|east->west|orders|2", "495", "495"]]);
    const after = second.views(T0).get("east->west")!;
    expect(after).toEqual(before);
    expect([after.totals.audited, after.totals.matched, after.totals.mismatched, after.topics[0]!.partitions]).toEqual([20, 19, 1, 1]);
    expect(after.problems.map((p) => [p.outcome, p.sourceOffset, p.targetOffsets])).toEqual([["mismatched", 495n, [495n]]]);
    await reopened.close();
  });

  it("writes unchanged held findings only every 12th cycle", async () => {
    const kv = createKv();
    const auditor = new ContentAuditor(config.audit, 10, createReader({ east: { "orders/2": source }, west: { "east.orders/2": altered } }, []), kv);
    const history = makeHistory([[0, 0], [500, 500]]);
    for (let cycle = 1; cycle <= 13; cycle++) await auditor.auditCycle({ ...snapshot, takenAt: T0 + cycle * 10_000 }, history, []);
    // Cycle 1 raised the finding (written at once); cycle 13 is the 12th since: written as due.
    expect(kv.writes).toBe(2);
  });
});
