import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Snapshot } from "@/lib/collector/types";
import { createSqliteStore, type TopicLagPoint } from "@/lib/store";
import { readTopicSparklines, sparkBucketMs } from "@/lib/views/topic-sparklines";
import { makeFlow, makeFlowPartition, makeSnapshot, T0 } from "../detect/fixtures";

const HOUR = 60 * 60_000;
const dir = mkdtempSync(path.join(os.tmpdir(), "gw-sparklines-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Cycle n (from 1) at T0 + 20 s × (n − 1): orders/0 lags n × 10, orders/1 lags 7 on odd cycles, payments/0 n mod 4. */
function snapshotOf(cycle: number, flowId = "east->west"): Snapshot {
  const partitions = [
    makeFlowPartition({ topic: "orders", partition: 0, sourceLogEnd: 10_000n, mm2Position: 10_000n - BigInt(cycle * 10) }),
    makeFlowPartition({ topic: "orders", partition: 1, sourceLogEnd: 10_000n, mm2Position: cycle % 2 === 1 ? 9_993n : 10_000n }),
    makeFlowPartition({ topic: "payments", partition: 0, targetTopic: "east.payments", sourceLogEnd: 500n, mm2Position: 500n - BigInt(cycle % 4) }),
  ];
  return makeSnapshot({ cycle, takenAt: T0 + (cycle - 1) * 20_000, flows: [makeFlow({ id: flowId, partitions })] });
}

/** What the flow page showed before: the store's per-topic sums of each minute over the last `rangeMs`. */
function sumsFromStore(points: readonly TopicLagPoint[]): Map<string, { at: number; lag: number }[]> {
  const byTopic = new Map<string, { at: number; lag: number }[]>();
  for (const p of points) byTopic.set(p.topic, [...(byTopic.get(p.topic) ?? []), { at: p.at, lag: p.lag }]);
  return byTopic;
}

describe("readTopicSparklines", () => {
  it("equals the store's per-minute sums, cycle after cycle, whether it sees every cycle or only some", async () => {
    const store = createSqliteStore(path.join(dir, "every.db"));
    for (let cycle = 1; cycle <= 24; cycle++) {
      const snapshot = snapshotOf(cycle);
      const flow = snapshot.flows[0]!;
      // The pipeline writes a cycle's samples before it publishes the cycle.
      await store.recordFlowSamples(snapshot.flows, snapshot.takenAt);
      const expected = sumsFromStore(await store.readTopicLagSeries(flow.id, snapshot.takenAt - HOUR, snapshot.takenAt));
      expect(await readTopicSparklines(store, snapshot, flow, { key: "every", ms: HOUR }), `cycle ${cycle}`).toEqual(expected);
      if (cycle % 5 === 0) expect(await readTopicSparklines(store, snapshot, flow, { key: "some", ms: HOUR }), `cycle ${cycle}, seen every 5th`).toEqual(expected);
    }
    // 24 cycles of 20 s: minutes 0–7 of the hour; orders at minute 7 (cycle 22–24, last 24: 240 + 0).
    const last = await readTopicSparklines(store, snapshotOf(24), snapshotOf(24).flows[0]!, { key: "every", ms: HOUR });
    expect(last.get("orders")!.map((p) => p.lag)).toEqual([37, 60, 97, 120, 157, 180, 217, 240]);
    await store.close();
  });

  it("reads the store once, then not at all while it sees every cycle, and from its newest minute after a skipped one", async () => {
    const calls: [number, number][] = [];
    const store = {
      readTopicLagSeries(_flow: string, from: number, to: number): Promise<TopicLagPoint[]> {
        calls.push([from - T0, to - T0]);
        return Promise.resolve([]);
      },
    };
    const read = (cycle: number) => {
      const snapshot = snapshotOf(cycle, "north->south");
      return readTopicSparklines(store, snapshot, snapshot.flows[0]!, { key: "1h", ms: HOUR });
    };
    await read(1);
    await read(2);
    await read(3);
    await read(4);
    expect(calls).toEqual([[-HOUR, 0]]);
    await read(6); // cycle 5 was not seen: its minute (1) may hold a later value than cycle 4's
    expect(calls).toEqual([
      [-HOUR, 0],
      [60_000, 100_000],
    ]);
    // Without the store's rows, each topic keeps what the cycles it saw said: minute 0 (cycle 3), minute 1 (cycle 6).
    expect((await read(6)).get("orders")!.map((p) => [p.at - T0, p.lag])).toEqual([
      [0, 37],
      [60_000, 60],
    ]);
  });

  it("lets requests that arrive together share one store read", async () => {
    let reads = 0;
    const store = {
      async readTopicLagSeries(): Promise<TopicLagPoint[]> {
        reads += 1;
        await new Promise((resolve) => setTimeout(resolve, 10));
        return [{ topic: "orders", at: T0 - 60_000, lag: 5 }];
      },
    };
    const snapshot = snapshotOf(1, "south->north");
    const answers = await Promise.all(Array.from({ length: 50 }, () => readTopicSparklines(store, snapshot, snapshot.flows[0]!, { key: "1h", ms: HOUR })));
    expect(reads).toBe(1);
    for (const a of answers) expect(a).toBe(answers[0]);
    expect(answers[0]!.get("orders")).toEqual([
      { at: T0 - 60_000, lag: 5 },
      { at: T0, lag: 17 },
    ]);
  });

  it("keeps at most 60 points, each the largest lag of its bucket, on long ranges", async () => {
    expect([15, 60, 360, 1440, 10_080].map((minutes) => sparkBucketMs(minutes * 60_000) / 60_000)).toEqual([1, 1, 6, 24, 168]);
    const sixHours = 6 * HOUR;
    const minutes: TopicLagPoint[] = Array.from({ length: 360 }, (_, m) => ({ topic: "orders", at: T0 - sixHours + m * 60_000, lag: m % 7 === 0 ? 1000 + m : m }));
    const store = { readTopicLagSeries: async (_flow: string, from: number) => minutes.filter((p) => p.at >= from) };
    const snapshot = snapshotOf(1, "west->east");
    const points = (await readTopicSparklines(store, snapshot, snapshot.flows[0]!, { key: "6h", ms: sixHours })).get("orders")!;
    expect(points).toHaveLength(61); // 60 six-minute buckets of history and the bucket of this cycle's minute
    // The bucket of minutes 0–5 holds minute 0 (1000); of 6–11 minute 7 (1007); of 354–359 minute 357 (1357).
    expect(points.slice(0, 2)).toEqual([
      { at: T0 - sixHours, lag: 1000 },
      { at: T0 - sixHours + 6 * 60_000, lag: 1007 },
    ]);
    expect(points.at(-2)).toEqual({ at: T0 - 6 * 60_000, lag: 1357 });
    expect(points.at(-1)).toEqual({ at: T0, lag: 17 }); // cycle 1: orders/0 10 + orders/1 7
  });
});
