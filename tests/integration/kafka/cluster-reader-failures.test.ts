import { mkdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KafkaUnreachableError } from "@/lib/errors";
import { createClusterReader, isItemError } from "@/lib/kafka";
import { classpathOf } from "@/lib/sandbox/jars";
import { type SandboxCluster, startCluster } from "@/lib/sandbox/kraft-cluster";
import { writeLogConfig } from "@/lib/sandbox/log-config";
import { sandboxDir } from "@/lib/sandbox/paths";
import { stopProcess } from "@/lib/sandbox/processes";
import { readSandboxState, type SandboxState } from "@/lib/sandbox/state";
import { sandboxKafka } from "@/lib/sandbox/topics";
import { lastBatchLeaderEpoch, produce, startSwitchableProxy, waitFor } from "./helpers";

/**
 * Unreachable clusters, and a broker that goes down and comes back. The shared sandbox's brokers must stay up for the other
 * test files, so this file starts its own single-node KRaft cluster from the sandbox's jars (its
 * pidfile sits with the sandbox's, so a crashed run is cleaned up by the next sandbox start).
 */
const alias = "kh-recovery";
const baseDir = path.join(sandboxDir, "kafka-helper-recovery");
let state: SandboxState;
let cluster: SandboxCluster;
let logOption: string;

beforeAll(async () => {
  state = readSandboxState();
  mkdirSync(baseDir, { recursive: true });
  logOption = writeLogConfig(baseDir, state.kafkaVersion);
  cluster = await startCluster({ alias, baseDir, classpath: classpathOf(state.jars), logOption });
});

afterAll(async () => {
  if (cluster) await stopProcess(cluster.process);
});

describe("a reader whose broker stops and starts again", () => {
  it("fails fast with KafkaUnreachableError while it is down and reads again, unchanged, once it is back", async () => {
    const topic = "kh-recovery-topic";
    const kafka = sandboxKafka(cluster.bootstrap, "gapwatch-kafka-test");
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ waitForLeaders: true, topics: [{ topic, numPartitions: 2, replicationFactor: 1 }] });
    await admin.disconnect();
    await produce(kafka, topic, 0, 3, "before");

    const reader = createClusterReader({ alias: "recovery", bootstrap: [cluster.bootstrap], requestTimeoutMs: 3000 });
    try {
      const before = (await reader.readMetadata()).topics.find((t) => t.name === topic)!.partitions[0]!;
      const fetched = await reader.fetchRecords(topic, 0, 0n);
      expect(!isItemError(fetched) && fetched.records.length).toBe(3);

      await stopProcess(cluster.process);
      await cluster.process.exited;
      const partitions = [{ topic, partition: 0, leader: before.leader }];
      for (const read of [() => reader.readMetadata(), () => reader.readLogOffsets(partitions), () => reader.fetchRecords(topic, 0, 3n), () => reader.listGroups()]) {
        const started = Date.now();
        const err = await read().then(() => null, (e: unknown) => e);
        expect(err).toBeInstanceOf(KafkaUnreachableError);
        expect((err as Error).message).toMatch(new RegExp(`^cluster recovery \\(${cluster.bootstrap}\\).* unreachable: .*ECONNREFUSED`));
        expect(Date.now() - started).toBeLessThan(3000);
      }

      cluster = await startCluster({ alias, baseDir, classpath: classpathOf(state.jars), logOption, port: cluster.port, controllerPort: cluster.controllerPort });
      const after = await waitFor("a leader after the restart", async () => {
        const p = (await reader.readMetadata()).topics.find((t) => t.name === topic)?.partitions[0];
        return p?.leader !== null && p?.leader !== undefined ? p : undefined;
      });
      // A restart elects the broker again, so the leader epoch moved on.
      expect(after.leaderEpoch).toBeGreaterThan(before.leaderEpoch);

      await produce(kafka, topic, 0, 2, "after");
      const offsets = await reader.readLogOffsets([{ topic, partition: 0, leader: after.leader }]);
      const stamped = await lastBatchLeaderEpoch(state, path.join(baseDir, alias, "log"), topic, 0);
      expect(stamped).toBe(after.leaderEpoch);
      expect(offsets.get(`${topic}/0`)).toEqual({ logStart: 0n, logEnd: 5n, leaderEpoch: stamped });
      const resumed = await reader.fetchRecords(topic, 0, 3n);
      expect(!isItemError(resumed) && resumed.records.map((r) => [r.offset, r.value?.toString()])).toEqual([[3n, "after-0"], [4n, "after-1"]]);
      expect(await reader.listGroups()).toEqual([]);
    } finally {
      await reader.close();
    }
  });
});

describe("unreachable clusters", () => {
  it("throws KafkaUnreachableError naming alias, bootstrap and cause when nothing listens", async () => {
    const nowhere = createClusterReader({ alias: "nowhere", bootstrap: ["127.0.0.1:1"], requestTimeoutMs: 2000 });
    try {
      const started = Date.now();
      const err = await nowhere.readMetadata().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(KafkaUnreachableError);
      expect((err as KafkaUnreachableError).cluster).toBe("nowhere");
      expect((err as Error).message).toMatch(/^cluster nowhere \(127\.0\.0\.1:1\) unreachable: connect ECONNREFUSED 127\.0\.0\.1:1/);
      expect(Date.now() - started).toBeLessThan(2000);
      await expect(nowhere.listGroups()).rejects.toBeInstanceOf(KafkaUnreachableError);
    } finally {
      await nowhere.close();
    }
  });

  it("times out against a broker that never answers, then recovers by itself when it answers again", async () => {
    const proxy = await startSwitchableProxy(state.clusters.east!.bootstrap);
    const behind = createClusterReader({ alias: "east-proxied", bootstrap: [proxy.address], requestTimeoutMs: 1500 });
    try {
      const started = Date.now();
      const err = await behind.readMetadata().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(KafkaUnreachableError);
      expect((err as Error).message).toMatch(/no answer within 1500 ms/);
      expect(Date.now() - started).toBeLessThan(1500 + 2500);
      proxy.setMode("forward");
      const md = await behind.readMetadata();
      expect(md.topics.some((t) => t.name === "orders")).toBe(true);
    } finally {
      await behind.close();
      await proxy.close();
    }
  });
});
