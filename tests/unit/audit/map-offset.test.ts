import { describe, expect, it } from "vitest";
import { mapSourceOffset } from "@/lib/audit";

// A one-to-one run 100→150 (50 offsets on both sides), then an upstream gap (50 upstream, 40 downstream).
const epoch = [
  { upstream: 100n, downstream: 200n },
  { upstream: 150n, downstream: 250n },
  { upstream: 200n, downstream: 290n },
];

describe("mapSourceOffset", () => {
  it("maps a sync's upstream offset to its downstream offset", () => {
    expect(mapSourceOffset(epoch, 100n, true, 400n)).toEqual({ kind: "exact", target: 200n, proven: true });
  });

  it("maps inside a contiguous run by target = d + (source − u)", () => {
    expect(mapSourceOffset(epoch, 120n, true, 400n)).toEqual({ kind: "exact", target: 220n, proven: true });
  });

  it("gives the provable bracket across an upstream gap", () => {
    // 39 records copied between the syncs; at most 30 of them lie at or above 170 → low 251 + 9; high 250 + 20.
    expect(mapSourceOffset(epoch, 170n, true, 400n)).toEqual({ kind: "bracket", low: 260n, high: 270n });
  });

  it("continues the run past the newest sync on a dense target, unproven (a later gap's sync may not be read yet)", () => {
    expect(mapSourceOffset(epoch, 230n, true, 400n)).toEqual({ kind: "exact", target: 320n, proven: false });
  });

  it("brackets up to the target's last offset past the newest sync when the target is not dense", () => {
    expect(mapSourceOffset(epoch, 230n, false, 330n)).toEqual({ kind: "bracket", low: 291n, high: 329n });
    expect(mapSourceOffset(epoch, 120n, false, 330n)).toEqual({ kind: "bracket", low: 201n, high: 250n });
  });

  it("says nothing before the epoch's first sync or without syncs", () => {
    expect(mapSourceOffset(epoch, 99n, true, 400n)).toEqual({ kind: "none" });
    expect(mapSourceOffset([], 5n, true, 400n)).toEqual({ kind: "none" });
  });
});
