import { describe, expect, it } from "vitest";
import { parseConfigText } from "@/lib/config";
import type { FetchedRecord, FetchRequestItem } from "@/lib/kafka";
import { ContentAuditor, type RecordSampleReader } from "@/lib/pipeline/content-audit";
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

describe("ContentAuditor", () => {
  it("reads each side once, compares the sampled records at their mapped offsets and raises AUDIT_MISMATCH for an altered copy", async () => {
    // orders/2 of east->west: one-to-one syncs (0,0) and (500,500); MM2 copied everything below 1000 one to one.
    const source = Array.from({ length: 40 }, (_, i) => makeRecord(480n + BigInt(i)));
    const target = source.map((r) => (r.offset === 495n ? { ...copyAt(r, 495n), value: Buffer.from("order-4X5") } : copyAt(r, r.offset)));
    const calls: string[] = [];
    const auditor = new ContentAuditor(config.audit, 10, createReader({ east: { "orders/2": source }, west: { "east.orders/2": target } }, calls));
    const snapshot = makeSnapshot({ partitions: [makeFlowPartition({ mm2Position: 1000n, targetLogEnd: 1000n })] });
    await auditor.auditCycle(snapshot, makeHistory([[0, 0], [500, 500]]), []);
    // Budget 120 a minute at a 10 s poll: 20 records, around the newest sync (490–509).
    expect(calls).toEqual(["east orders/2@490", "west east.orders/2@490"]);
    const view = auditor.views(T0).get("east->west")!;
    expect([view.totals.audited, view.totals.matched, view.totals.mismatched]).toEqual([20, 19, 1]);
    // Each side returned 490–519 (30 records of a 5-byte key and a 9-byte value): the fake broker has no byte limit.
    expect(view.lastCycle?.cost).toMatchObject({ windows: 1, fetchRequests: 2, bytes: 2 * 30 * (5 + 9) });
    expect(auditor.findings().map((f) => [f.type, f.severity, f.evidence.sourceOffset, f.evidence.targetOffset, f.evidence.firstValueDifference])).toEqual([
      ["AUDIT_MISMATCH", "critical", "495", "495", 7],
    ]);
  });
});
