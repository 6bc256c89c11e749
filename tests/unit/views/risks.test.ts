import { describe, expect, it } from "vitest";
import type { RiskRecord } from "@/lib/alerts/types";
import { shapeRisksView } from "@/lib/views/risks";

const T = 1_736_910_000_000;

function risk(over: Partial<RiskRecord>): RiskRecord {
  return {
    key: "COMMIT_WITHOUT_LEADER_EPOCH|east|billing",
    type: "COMMIT_WITHOUT_LEADER_EPOCH",
    severity: "info",
    flow: null,
    cluster: "east",
    topic: null,
    partition: null,
    group: "billing",
    summary: "",
    evidence: {},
    firstSeen: T,
    lastSeen: T,
    ...over,
  };
}

describe("shapeRisksView", () => {
  it("puts warnings first and counts risks per cluster and per group", () => {
    const view = shapeRisksView([
      risk({}),
      risk({ key: "COMMIT_WITHOUT_LEADER_EPOCH|west|billing", cluster: "west" }),
      risk({ key: "UNCLEAN_ELECTION_ENABLED|west", type: "UNCLEAN_ELECTION_ENABLED", severity: "warning", group: null, cluster: "west" }),
    ]);
    expect(view.risks.map((r) => r.key)).toEqual(["UNCLEAN_ELECTION_ENABLED|west", "COMMIT_WITHOUT_LEADER_EPOCH|east|billing", "COMMIT_WITHOUT_LEADER_EPOCH|west|billing"]);
    expect(view.byCluster).toEqual([
      { cluster: "east", risks: 1 },
      { cluster: "west", risks: 2 },
    ]);
    expect(view.byGroup).toEqual([
      { cluster: "east", group: "billing", risks: 1 },
      { cluster: "west", group: "billing", risks: 1 },
    ]);
  });
});
