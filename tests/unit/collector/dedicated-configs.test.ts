import { describe, expect, it } from "vitest";
import { readDedicatedConfigs } from "@/lib/collector/dedicated-configs";
import { discoverFlows } from "@/lib/collector/flow-discovery";
import { createFlowTailState } from "@/lib/collector/flow-readings";
import type { ClusterSnapshot } from "@/lib/collector/types";
import type { FetchResult } from "@/lib/kafka";
import { eastToWestConfigRecords } from "../mm2/helpers/dedicated-config-records";
import { createFetchReader } from "./fetch-reader";
import { makeCluster, makeTopic } from "./fixtures";

const configsTopic = "mm2-configs.east.internal";
const records = eastToWestConfigRecords.length;

/** The east->west herder's offsets and configs topics on west (9 config records), west->east's offsets topic alone on east. */
const east = makeCluster("east", [makeTopic("orders"), makeTopic("mm2-offsets.west.internal", [{ logEnd: 0n }])]);
const west = (overrides: Partial<ClusterSnapshot> = {}) =>
  makeCluster("west", [makeTopic("mm2-offsets.east.internal", [{ logEnd: 3n }]), makeTopic(configsTopic, [{ logStart: 0n, logEnd: BigInt(records) }])], overrides);

/** The broker's answer: every captured record at its offset. */
const complete: FetchResult = {
  records: eastToWestConfigRecords.map((r) => ({ offset: BigInt(r.offset), timestamp: 0, key: Buffer.from(r.key), value: Buffer.from(r.value), headers: [] })),
  highWatermark: BigInt(records),
  logStartOffset: 0n,
  nextOffset: BigInt(records),
  controlBatches: 0,
};

function readWith(answer: FetchResult, state = createFlowTailState(), westSnapshot = west()) {
  const clusters = [east, westSnapshot];
  const readers = new Map(clusters.map((c) => [c.alias, createFetchReader(c.alias, { [`${configsTopic}/0`]: answer })]));
  return readDedicatedConfigs(clusters, { readers, clusters: new Map(clusters.map((c) => [c.alias, c])), state });
}

describe("readDedicatedConfigs", () => {
  it("reads each herder's connector configs; a pair whose config topic does not exist holds none", async () => {
    const read = await readWith(complete);
    expect([...read].map(([id, c]) => [id, c.topic, c.connectors && [...c.connectors.keys()], c.error])).toEqual([
      ["west->east", "mm2-configs.west.internal", [], null],
      ["east->west", configsTopic, ["MirrorHeartbeatConnector", "MirrorSourceConnector", "MirrorCheckpointConnector"], null],
    ]);
    const clusters = [east, west()].map((c) => ({ alias: c.alias, topicNames: c.topics.map((t) => t.name) }));
    expect(discoverFlows([], clusters, {}, read).map((f) => [f.id, f.configReadError])).toEqual([["east->west", null]]);
  });

  it("knows nothing until one read reached the log end, then keeps the last complete configs with this cycle's error", async () => {
    const state = createFlowTailState();
    const failed = await readWith({ error: "NOT_LEADER_OR_FOLLOWER" }, state);
    expect(failed.get("east->west")).toEqual({
      topic: configsTopic,
      connectors: null,
      error: `MM2 connector configs from west/${configsTopic}: reading west/${configsTopic}/0: NOT_LEADER_OR_FOLLOWER; partition 0 not read to its end`,
    });
    expect((await readWith(complete, state)).get("east->west")!.connectors?.size).toBe(3);
    const stale = await readWith({ error: "NOT_LEADER_OR_FOLLOWER" }, state, west({ reachable: false, stale: true }));
    expect([stale.get("east->west")!.connectors?.size, stale.get("east->west")!.error]).toEqual([3, `MM2 connector configs from west/${configsTopic}: west was not read this cycle`]);
  });
});
