import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { decodeColumnar, encodeColumnar } from "@/lib/pipeline/columnar-codec";
import { makeClusterSnapshots } from "./cluster-snapshots-sample";

/**
 * SHA-256 of `encodeColumnar({ clusters })` as the codec of main 7de6b00 wrote them (it flattened arrays of arrays
 * with `flat`): web instances of that version must read the bytes of this one, and a collector's bytes are compared
 * across versions by the replay of recorded models. [seed, clusters, most topics a cluster]: two and three clusters
 * (written value by value, each one's topics a column), twelve (a column of clusters), one of a few topics (inline).
 */
const written: [number, number, number, string][] = [
  [1, 2, 40, "e565830be2b14270f3ee45ceb746b3b0914366a956e417fb9e5cf90e02355e7b"],
  [2, 3, 300, "0164e2a2db3b1482acd1f27cc45889d9c160d30912200650145d1db60f9e5330"],
  [3, 12, 30, "32aca0fa4ba44fca01ad8a88d6a9b2708690f4470648537156f895e48883ba1e"],
  [4, 1, 5, "1a3f4649f7460b547f8fff30de85c0cbda3b8438fa8a25a0e1f79c65f845a78c"],
];

describe("columnar codec: arrays of arrays (a cluster's partition states and their replica lists)", () => {
  it.each(written)("writes seed %i (%i clusters, up to %i topics) byte for byte as the previous codec", (seed, clusters, topics, sha) => {
    const body = encodeColumnar({ clusters: makeClusterSnapshots(seed, clusters, topics) });
    expect(createHash("sha256").update(body).digest("hex")).toBe(sha);
  });

  it.each(written)("decodes seed %i (%i clusters, up to %i topics) to the clusters encoded", (seed, clusters, topics) => {
    const value = { clusters: makeClusterSnapshots(seed, clusters, topics) };
    const decoded = decodeColumnar(encodeColumnar(value)) as typeof value;
    expect(decoded.clusters).toEqual(value.clusters);
  });

  it("covers what it claims: empty topics and replica lists, unknown offsets, offsets beyond 2^53 and int64", () => {
    const states = makeClusterSnapshots(2, 3, 300).flatMap((c) => c.topics.flatMap((t) => t.partitions));
    const topics = makeClusterSnapshots(2, 3, 300).flatMap((c) => c.topics);
    expect(topics.some((t) => t.partitions.length === 0)).toBe(true);
    expect(states.some((p) => p.replicas.length === 0)).toBe(true);
    expect(states.some((p) => p.logEnd === null && p.leader === null)).toBe(true);
    expect(states.some((p) => p.logEnd !== null && p.logEnd > 2n ** 53n && p.logEnd < 2n ** 63n)).toBe(true);
    expect(states.some((p) => p.logEnd !== null && p.logEnd >= 2n ** 63n)).toBe(true);
    expect(states.some((p) => p.previousEpochEnd !== undefined)).toBe(true);
    expect(states.some((p) => p.eligibleLeaderReplicas === null)).toBe(true);
  });
});
