import { appendFileSync, copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { listSyncHistories } from "@/lib/collector/sync-history";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GapwatchConfig } from "@/lib/config";
import { type RecordedCycle, readCycleRecording } from "@/lib/pipeline/cycle-recording";
import { type ReplayedCycle, replayPipeline } from "@/scripts/replay/replay-pipeline";
import { recordSyntheticCycles } from "@/scripts/replay/synthetic-recording";

/**
 * The replay harness issue 32 needs to prove "no behaviour change": the same recorded cycles give the same outputs
 * every time (nothing in them depends on the wall clock or on chance), a change in the input shows in the digest,
 * and a restart changes nothing but the in-memory catch-up window. The synthetic world's stalled partition is
 * purged from cycle 2 (DATA_LOSS) and stalls past the 120 s threshold at a 5 s poll (TASK_STALLED from cycle 26).
 */
const cycles = 30;
let dir = "";
let file = "";
let config: GapwatchConfig;
/** The recording replayed once, without a restart: what each test compares with. */
let plain: ReplayedCycle[] = [];

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), "gapwatch-replay-test-"));
  file = path.join(dir, "cycles.jsonl");
  config = recordSyntheticCycles(file, 500, cycles);
  plain = await replayPipeline(readCycleRecording(file), { config });
}, 120_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The recording with one partition's MM2 position one lower from `cycle` on (as if MM2 had copied one less). */
async function* alterPosition(source: AsyncIterable<RecordedCycle>, cycle: number): AsyncGenerator<RecordedCycle> {
  for await (const recorded of source) {
    if (recorded.current.cycle >= cycle) {
      const flow = recorded.current.flows[0]!;
      const first = flow.partitions[0]!;
      const moved = { ...first, mm2Position: first.mm2Position === null ? null : first.mm2Position - 1n };
      const flows = [{ ...flow, partitions: [moved, ...flow.partitions.slice(1)] }, ...recorded.current.flows.slice(1)];
      yield { ...recorded, current: { ...recorded.current, flows } };
    } else {
      yield recorded;
    }
  }
}

describe("a recording of cycles", () => {
  it("reads back every cycle with the one before it as previous and the offset-sync histories as they grew", async () => {
    const read: { cycle: number; previous: number | null; syncPoints: number }[] = [];
    for await (const { current, previous, history } of readCycleRecording(file)) {
      const syncPoints = [...listSyncHistories(history.offsetSyncs)].reduce((n, [, points]) => n + points.length, 0);
      read.push({ cycle: current.cycle, previous: previous?.cycle ?? null, syncPoints });
    }
    expect(read.map((r) => [r.cycle, r.previous])).toEqual(read.map((_, i) => [i + 1, i === 0 ? null : i]));
    // MM2 writes an offset sync every 10th cycle per partition (scripts/bench/synthetic-world.ts): histories grow.
    expect(read[cycles - 1]!.syncPoints).toBeGreaterThan(read[0]!.syncPoints);
  });

  it("names the line it cannot read and what to do", async () => {
    const broken = path.join(dir, "broken.jsonl");
    copyFileSync(file, broken);
    appendFileSync(broken, "{not json\n");
    const reading = async () => {
      for await (const recorded of readCycleRecording(broken)) expect(recorded.current.cycle).toBeGreaterThan(0);
    };
    await expect(reading()).rejects.toThrow(`${broken}:${cycles + 1} is not a line CycleRecorder wrote`);
  });
});

describe("replaying recorded cycles through the pipeline", () => {
  it("gives the same outputs every time, and the detectors really judge the cycles", async () => {
    const first = plain;
    const second = await replayPipeline(readCycleRecording(file), { config });
    expect(first.map((c) => c.cycle)).toEqual(Array.from({ length: cycles }, (_, i) => i + 1));
    expect(second.map((c) => c.digest)).toEqual(first.map((c) => c.digest));
    expect(new Set(first.map((c) => c.digest)).size).toBe(cycles);
    const types = (c: { firing: string[] }) => [...new Set(c.firing.map((key) => key.split("|")[0]))].sort();
    expect(types(first[0]!)).toEqual(["REPLICATION_LAG"]);
    expect(types(first[1]!)).toContain("DATA_LOSS");
    expect(types(first[24]!)).not.toContain("TASK_STALLED");
    expect(types(first[cycles - 1]!)).toEqual(expect.arrayContaining(["DATA_LOSS", "REPLICATION_LAG", "TASK_STALLED"]));
  }, 120_000);

  it("shows a changed input in the digest from the changed cycle on", async () => {
    const altered = await replayPipeline(alterPosition(readCycleRecording(file), 10), { config });
    const differs = altered.map((c, i) => c.digest !== plain[i]!.digest);
    expect(differs.slice(0, 9)).toEqual(Array(9).fill(false));
    expect(differs.slice(9)).toEqual(Array(cycles - 9).fill(true));
  }, 120_000);

  it("changes nothing but the catch-up window across a restart (detector memory and alerts come back from the store)", async () => {
    const restarted = await replayPipeline(readCycleRecording(file), { config, restartBefore: new Set([12]) });
    expect(restarted.map((c) => c.digestWithoutProgress)).toEqual(plain.map((c) => c.digestWithoutProgress));
    expect(restarted.map((c) => c.firing)).toEqual(plain.map((c) => c.firing));
    expect(restarted.slice(0, 11).map((c) => c.digest)).toEqual(plain.slice(0, 11).map((c) => c.digest));
    expect(restarted[11]!.digest).not.toBe(plain[11]!.digest);
  }, 120_000);
});
