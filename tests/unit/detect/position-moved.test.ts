import { describe, expect, it } from "vitest";
import { FindingType } from "@/lib/detect/types";
import { findingsOf, makeConnect, makeConnector, makeFlowPartition, makeHistory, makeSnapshot, makeTopicConfigs, runCycles } from "./fixtures";

const copied = makeFlowPartition({ sourceLogEnd: 6000n, mm2Position: 5000n, committedPosition: 5000n, targetLogEnd: 5000n, latestSync: { upstream: 4900n, downstream: 4900n } });

describe("MM2_POSITION_MOVED", () => {
  it("reports a position moved back by hand with the exact offsets MM2 copies again", () => {
    const patched = { ...copied, mm2Position: 5000n, committedPosition: 4700n };
    const [, second] = runCycles([{ snapshot: makeSnapshot({ cycle: 1, partitions: [copied] }) }, { snapshot: makeSnapshot({ cycle: 2, partitions: [patched] }) }]);
    const findings = findingsOf(second, FindingType.MM2_POSITION_MOVED);
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({
      key: "MM2_POSITION_MOVED|east->west|orders|2|back-4700",
      severity: "warning",
      summary:
        "MM2's position of orders/2 was moved back by hand from 5000 to 4700 (Connect's offsets altered or deleted): " +
        "MM2 copies offsets 4700–4999 again (300 records duplicated on west)",
    });
    expect(findings[0]?.evidence).toMatchObject({ direction: "back", firstAffectedOffset: "4700", lastAffectedOffset: "4999", affectedCount: "300" });
    expect(findingsOf(second, FindingType.TOPIC_RESET)).toEqual([]);
  });

  it("sees a move back across cycles where Connect held no offset (offsets deleted, MM2 restarted from the log start)", () => {
    const deleted = { ...copied, committedPosition: null };
    const restarted = { ...copied, mm2Position: 120n, committedPosition: 120n, targetLogEnd: 5120n, latestSync: { upstream: 0n, downstream: 5000n } };
    const [, second, third] = runCycles([
      { snapshot: makeSnapshot({ cycle: 1, partitions: [copied] }) },
      { snapshot: makeSnapshot({ cycle: 2, partitions: [deleted] }) },
      { snapshot: makeSnapshot({ cycle: 3, partitions: [restarted] }) },
    ]);
    expect(findingsOf(second, FindingType.MM2_POSITION_MOVED)).toEqual([]);
    expect(findingsOf(third, FindingType.MM2_POSITION_MOVED).map((f) => [f.evidence.direction, f.evidence.firstAffectedOffset, f.evidence.lastAffectedOffset])).toEqual([
      ["back", "120", "4999"],
    ]);
  });

  it("reports a position moved forward past what the target holds while the connector is STOPPED, with the offsets MM2 skips", () => {
    const patched = { ...copied, mm2Position: 5400n, committedPosition: 5400n };
    const connect = [makeConnect([makeConnector({ state: "STOPPED", tasks: [] })])];
    const [, second, third] = runCycles([
      { snapshot: makeSnapshot({ cycle: 1, partitions: [copied], connect }) },
      { snapshot: makeSnapshot({ cycle: 2, partitions: [patched], connect }) },
      { snapshot: makeSnapshot({ cycle: 3, partitions: [patched], connect }) },
    ]);
    // Seen once, it could be the stopping connector's last flush: reported when it holds a second cycle.
    expect(findingsOf(second, FindingType.MM2_POSITION_MOVED)).toEqual([]);
    expect(findingsOf(third, FindingType.MM2_POSITION_MOVED).map((f) => [f.key, f.evidence.firstAffectedOffset, f.evidence.lastAffectedOffset, f.evidence.affectedCount])).toEqual([
      ["MM2_POSITION_MOVED|east->west|orders|2|forward-5000", "5000", "5399", "400"],
    ]);
  });

  it("reports a forward move made before Gapwatch saw the connector STOPPED (the first stopped cycle waits, it does not absorb)", () => {
    // As in the sandbox: a cycle while running, then stop + PATCH 5000 → 5400 between two cycles.
    const connect = [makeConnect([makeConnector({ state: "STOPPED", tasks: [] })])];
    const patched = { ...copied, mm2Position: 5400n, committedPosition: 5400n };
    const outputs = runCycles([
      { snapshot: makeSnapshot({ cycle: 1, partitions: [copied] }) },
      { snapshot: makeSnapshot({ cycle: 2, partitions: [patched], connect }) },
      { snapshot: makeSnapshot({ cycle: 3, partitions: [patched], connect }) },
      { snapshot: makeSnapshot({ cycle: 4, partitions: [patched], connect }) },
    ]);
    expect(outputs.map((o) => findingsOf(o, FindingType.MM2_POSITION_MOVED).map((f) => `${f.evidence.firstAffectedOffset}-${f.evidence.lastAffectedOffset}`))).toEqual([
      [],
      [],
      [],
      ["5000-5399"],
    ]);
  });

  describe("benign cases", () => {
    it("stays quiet when a running MM2's committed offsets, read after the target's log end, are ahead of it", () => {
      // Seen in the sandbox under steady traffic: MM2 copied and committed 6 more records between the two reads.
      const raced = { ...copied, mm2Position: 5006n, committedPosition: 5006n };
      const [, second] = runCycles([{ snapshot: makeSnapshot({ cycle: 1, partitions: [copied] }) }, { snapshot: makeSnapshot({ cycle: 2, partitions: [raced] }) }]);
      expect(findingsOf(second, FindingType.MM2_POSITION_MOVED)).toEqual([]);
    });

    it("stays quiet on progress, on a committed position catching up with what the target proves, and on flush lag", () => {
      const progressed = { ...copied, mm2Position: 5300n, committedPosition: 5100n, targetLogEnd: 5300n };
      const flushed = { ...copied, mm2Position: 5300n, committedPosition: 5300n, targetLogEnd: 5300n };
      const outputs = runCycles([
        { snapshot: makeSnapshot({ cycle: 1, partitions: [copied] }) },
        { snapshot: makeSnapshot({ cycle: 2, partitions: [progressed] }) },
        { snapshot: makeSnapshot({ cycle: 3, partitions: [flushed] }) },
      ]);
      expect(outputs.flatMap((o) => findingsOf(o, FindingType.MM2_POSITION_MOVED))).toEqual([]);
    });

    it("stays quiet when a stopping connector's last flush lands between the target's read and Connect's", () => {
      // Seen in the soak (payments/2, connector being STOPPED): committed 2184, target 2195 proves 2182; next cycle 2188.
      const connect = [makeConnect([makeConnector({ state: "STOPPED", tasks: [] })])];
      const sync = { upstream: 2180n, downstream: 2193n };
      const running = makeFlowPartition({ sourceLogEnd: 2148n, mm2Position: 2148n, committedPosition: 2148n, targetLogEnd: 2161n, latestSync: { upstream: 2130n, downstream: 2143n } });
      const flushed = { ...running, sourceLogEnd: 2184n, mm2Position: 2184n, committedPosition: 2184n, targetLogEnd: 2195n, latestSync: sync };
      const stopped = { ...flushed, sourceLogEnd: 2221n, mm2Position: 2188n, targetLogEnd: 2201n };
      const outputs = runCycles([
        { snapshot: makeSnapshot({ cycle: 1, partitions: [running] }) },
        { snapshot: makeSnapshot({ cycle: 2, partitions: [flushed], connect }) },
        { snapshot: makeSnapshot({ cycle: 3, partitions: [stopped], connect }) },
      ]);
      expect(outputs.flatMap((o) => findingsOf(o, FindingType.MM2_POSITION_MOVED))).toEqual([]);
    });

    it("stays quiet on progress when the target's log end, read after the source's, leaves no proven position", () => {
      // Seen in the soak (payments/0): source log end 763 read, then the target's 764; Connect committed 758.
      const before = makeFlowPartition({ sourceLogEnd: 730n, mm2Position: 730n, committedPosition: 730n, targetLogEnd: 730n, latestSync: { upstream: 700n, downstream: 700n } });
      const skewed = { ...before, sourceLogEnd: 763n, mm2Position: 758n, committedPosition: 758n, targetLogEnd: 764n };
      const outputs = runCycles([{ snapshot: makeSnapshot({ cycle: 1, partitions: [before] }) }, { snapshot: makeSnapshot({ cycle: 2, partitions: [skewed] }) }]);
      expect(outputs.flatMap((o) => findingsOf(o, FindingType.MM2_POSITION_MOVED))).toEqual([]);
    });

    it("does not judge a forward move on compacted partitions or where transaction markers were seen", () => {
      const patched = { ...copied, mm2Position: 5400n, committedPosition: 5400n };
      const compacted = runCycles([
        { snapshot: makeSnapshot({ cycle: 1, partitions: [copied], sourceConfigs: makeTopicConfigs({ cleanupPolicy: "compact" }) }) },
        { snapshot: makeSnapshot({ cycle: 2, partitions: [patched], sourceConfigs: makeTopicConfigs({ cleanupPolicy: "compact" }) }) },
      ]);
      const markers = runCycles([
        { snapshot: makeSnapshot({ cycle: 1, partitions: [{ ...copied, transactionMarkersSeen: true }] }) },
        { snapshot: makeSnapshot({ cycle: 2, partitions: [{ ...patched, transactionMarkersSeen: true }] }) },
      ]);
      expect([...compacted, ...markers].flatMap((o) => findingsOf(o, FindingType.MM2_POSITION_MOVED))).toEqual([]);
    });

    it("leaves a recreated topic (new topic ID) to TOPIC_RESET", () => {
      const recreated = { ...copied, sourceTopicId: "id-2", sourceLogEnd: 30n, mm2Position: 30n, committedPosition: 30n };
      const [, second] = runCycles([{ snapshot: makeSnapshot({ cycle: 1, partitions: [copied] }) }, { snapshot: makeSnapshot({ cycle: 2, partitions: [recreated] }) }]);
      expect(findingsOf(second, FindingType.MM2_POSITION_MOVED)).toEqual([]);
    });
  });

  describe("a forward move seen in the offset syncs (stopped, PATCHed and resumed between two cycles)", () => {
    // MM2 copied 4900..5099 (target 4900..5099), was moved to 5400 and resumed: its first sync after
    // the jump is (5400, 5100). Offsets 5100..5399 still exist at the source.
    const resumed = { ...copied, mm2Position: 5450n, committedPosition: 5450n, targetLogEnd: 5150n, latestSync: { upstream: 5400n, downstream: 5100n } };
    const syncs: [number, number][] = [[4900, 4900], [5400, 5100]];
    const run = (before: typeof copied, after: typeof copied, sourceConfigs = makeTopicConfigs()) =>
      runCycles([
        { snapshot: makeSnapshot({ cycle: 1, partitions: [before], sourceConfigs }), history: makeHistory([[4900, 4900]]) },
        { snapshot: makeSnapshot({ cycle: 2, partitions: [after], sourceConfigs }), history: makeHistory(syncs) },
      ]);

    it("reports the exact skipped offsets from the sync step while the connector runs again", () => {
      const [, second] = run(copied, resumed);
      const findings = findingsOf(second, FindingType.MM2_POSITION_MOVED);
      expect(findings).toHaveLength(1);
      expect(findings[0]).toMatchObject({
        key: "MM2_POSITION_MOVED|east->west|orders|2|forward-5100",
        severity: "warning",
        summary:
          "MM2 jumped forward on orders/2 from 5100 to 5400 while the records in between still exist (Connect's offsets altered, " +
          "or its consumer reset to latest): 300 records never copied to west (offsets 5100–5399)",
      });
      expect(findings[0]?.evidence).toMatchObject({ direction: "forward", firstAffectedOffset: "5100", lastAffectedOffset: "5399", affectedCount: "300", signal: "offset-sync-gap" });
      expect(second!.findings.filter((f) => f.type !== FindingType.MM2_POSITION_MOVED)).toEqual([]);
    });

    it("leaves a jump over deleted records to DATA_LOSS", () => {
      const [, second] = run({ ...copied, sourceLogStart: 0n }, { ...resumed, sourceLogStart: 5400n });
      expect(findingsOf(second, FindingType.MM2_POSITION_MOVED)).toEqual([]);
      expect(findingsOf(second, FindingType.DATA_LOSS).map((f) => [f.evidence.firstLostOffset, f.evidence.lastLostOffset])).toEqual([["5100", "5399"]]);
    });

    it("stays quiet on compacted topics, transactional topics, a 2-offset gap and a target that is not MM2's alone", () => {
      const compacted = run(copied, resumed, makeTopicConfigs({ cleanupPolicy: "compact" }));
      const markers = run({ ...copied, transactionMarkersSeen: true }, { ...resumed, transactionMarkersSeen: true });
      const twoMarkers = runCycles([
        { snapshot: makeSnapshot({ cycle: 1, partitions: [copied] }), history: makeHistory([[4900, 4900]]) },
        { snapshot: makeSnapshot({ cycle: 2, partitions: [{ ...resumed, latestSync: { upstream: 5102n, downstream: 5100n } }] }), history: makeHistory([[4900, 4900], [5102, 5100]]) },
      ]);
      const shared = run(copied, { ...resumed, targetDensityIssue: "another producer writes to east.orders" });
      expect([...compacted, ...markers, ...twoMarkers, ...shared].flatMap((o) => findingsOf(o, FindingType.MM2_POSITION_MOVED))).toEqual([]);
    });
  });
});
