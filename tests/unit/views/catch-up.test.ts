import { describe, expect, it } from "vitest";
import { ProgressWindow } from "@/lib/pipeline/progress-window";
import { readFlowCatchUp } from "@/lib/views/catch-up";
import { makeFlow, makeFlowPartition, makeSnapshot, T0 } from "../detect/fixtures";

/** east->west at T0 + `seconds`, orders/2 and orders/3 at the given [MM2 position, source log end]. */
function makeAt(seconds: number, two: [number, number] | null, three: [number, number]) {
  const partition = (p: number, [position, logEnd]: [number, number]) => makeFlowPartition({ partition: p, mm2Position: BigInt(position), sourceLogEnd: BigInt(logEnd) });
  const unknown = makeFlowPartition({ partition: 2, mm2Position: null, unknown: { reason: "east ListOffsets: NOT_LEADER_OR_FOLLOWER", dataAt: T0 } });
  const partitions = [two === null ? unknown : partition(2, two), partition(3, three)];
  return makeSnapshot({ takenAt: T0 + seconds * 1000, flows: [makeFlow({ partitions })] });
}

describe("readFlowCatchUp", () => {
  it("gives each partition its rates over the window, an ETA where MM2 gains on the source, and the flow's worst state", () => {
    const window = new ProgressWindow(300_000);
    const first = makeAt(0, [1000, 2000], [500, 600]);
    const firstEstimate = readFlowCatchUp(window.record(first), first.flows[0]!);
    expect([firstEstimate.state, firstEstimate.windowSeconds, firstEstimate.partitions.map((p) => p.state)]).toEqual(["unknown", null, ["unknown", "unknown"]]);
    // A minute later: orders/2 copied 600 while 200 arrived (net 6.67/s for 600 left: 90 s); orders/3 copied nothing.
    const later = makeAt(60, [1600, 2200], [500, 660]);
    const estimate = readFlowCatchUp(window.record(later), later.flows[0]!);
    expect(estimate.partitions.map((p) => [p.partition, p.state, p.lag, p.replicationRate, p.produceRate, p.etaSeconds])).toEqual([
      [2, "catching-up", 600n, 10, 200 / 60, 600 / (10 - 200 / 60)],
      [3, "not-catching-up", 160n, 0, 1, null],
    ]);
    expect([estimate.state, estimate.windowSeconds, estimate.lag, estimate.replicationRate, estimate.etaSeconds, estimate.notCatchingUp]).toEqual([
      "not-catching-up",
      60,
      760n,
      10,
      null,
      1,
    ]);
  });

  it("says caught up at lag 0, and unknown for a partition unknown at either end or whose position went back", () => {
    const window = new ProgressWindow(300_000);
    window.record(makeAt(0, null, [500, 600]));
    const later = makeAt(30, [1000, 1000], [400, 600]);
    const estimate = readFlowCatchUp(window.record(later), later.flows[0]!);
    expect(estimate.partitions.map((p) => [p.partition, p.state, p.replicationRate])).toEqual([
      [2, "caught-up", null],
      [3, "unknown", null],
    ]);
    expect(estimate.state).toBe("unknown");
  });

  it("writes each partition's fields in one order whichever way it was judged (the API's JSON)", () => {
    const window = new ProgressWindow(300_000);
    const alone = makeAt(0, null, [500, 600]);
    const [unknown] = readFlowCatchUp(window.record(alone), alone.flows[0]!).partitions;
    expect(Object.entries(unknown!)).toEqual([["topic", "orders"], ["partition", 2], ["lag", null], ["state", "unknown"], ["replicationRate", null], ["produceRate", null], ["etaSeconds", null]]);
    const later = makeAt(20, [1000, 1000], [400, 640]);
    const [caughtUp, wentBack] = readFlowCatchUp(window.record(later), later.flows[0]!).partitions;
    expect(Object.keys(caughtUp!)).toEqual(["topic", "partition", "lag", "state", "replicationRate", "produceRate", "etaSeconds"]);
    expect(Object.entries(wentBack!)).toEqual([["topic", "orders"], ["partition", 3], ["lag", 240n], ["state", "unknown"], ["replicationRate", null], ["produceRate", null], ["etaSeconds", null]]);
    // Against the first sample still (the window's oldest): orders/3 copied 80 and 40 arrived in 40 s, 60 left.
    const last = makeAt(40, [1100, 1100], [580, 640]);
    const [, rated] = readFlowCatchUp(window.record(last), last.flows[0]!).partitions;
    expect(Object.entries(rated!)).toEqual([["topic", "orders"], ["partition", 3], ["lag", 60n], ["state", "catching-up"], ["etaSeconds", 60], ["replicationRate", 2], ["produceRate", 1]]);
  });

  it("compares with the oldest sample still inside the window, one kept per tenth of it", () => {
    const window = new ProgressWindow(300_000);
    let reading = window.record(makeAt(0, [0, 0], [0, 0]));
    for (let s = 10; s <= 330; s += 10) reading = window.record(makeAt(s, [s, s], [0, 0]));
    expect([reading.reference?.at, reading.current.at]).toEqual([T0 + 30_000, T0 + 330_000]);
    const estimate = readFlowCatchUp(reading, makeAt(330, [330, 330], [0, 0]).flows[0]!);
    expect([estimate.windowSeconds, estimate.partitions[0]!.replicationRate, estimate.state]).toEqual([300, 1, "caught-up"]);
  });
});
