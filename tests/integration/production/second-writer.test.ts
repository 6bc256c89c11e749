import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Snapshot } from "@/lib/collector/types";
import { connectorNames } from "@/lib/sandbox/mm2-connectors";
import { sleep } from "@/lib/sandbox/processes";
import { runLag, runResume } from "@/lib/sandbox/scenarios";
import { readSettledPosition } from "@/lib/sandbox/scenarios/connector-control";
import { readSandboxState } from "@/lib/sandbox/state";
import { ensureTopics, fetchLogEnds, sandboxKafka } from "@/lib/sandbox/topics";
import { createSandboxRuntime, cycleUntil as cycleUntilSeen } from "../support/runtime";

/**
 * A second producer writing to a target topic: the position derived from the newest offset sync
 * counts its records as MM2's and would hide lag. Gapwatch must see that the target's last record
 * is not MM2's copy, fall back to Connect's committed position (exact while MM2 is paused), say
 * why in the row, and not take the extra target records for MM2 re-copies afterwards.
 * Ground truth: log ends read with kafkajs and MM2's settled position read from Connect.
 */
const state = readSandboxState();
const east = state.clusters.east!.bootstrap;
const west = state.clusters.west!.bootstrap;
const endpoint = { url: state.connect.url, timeoutMs: 15_000 };
const runtime = createSandboxRuntime(state, 5);
const topic = `writertest-${randomUUID().slice(0, 8)}`;
const remote = `east.${topic}`;

const rowOf = (s: Snapshot) => s.flows[0]?.partitions.find((p) => p.topic === topic && p.partition === 0);

async function produce(bootstrap: string, name: string, count: number, tag: string): Promise<void> {
  const producer = sandboxKafka(bootstrap).producer();
  await producer.connect();
  await producer.send({ topic: name, acks: -1, messages: Array.from({ length: count }, (_, i) => ({ partition: 0, value: `${tag}-${i}` })) });
  await producer.disconnect();
}

function describeRow(s: Snapshot): string {
  const row = rowOf(s);
  if (!row) return "no row";
  return `committed ${row.committedPosition} mm2 ${row.mm2Position} (${row.positionSource}) lag ${row.lag} target ${row.targetLogEnd} density ${row.targetDensityIssue}`;
}
const cycleUntil = (check: (s: Snapshot) => boolean, what: string, timeoutMs = 60_000) => cycleUntilSeen(runtime.collector, check, what, { timeoutMs, describe: describeRow });

beforeAll(async () => {
  await ensureTopics(east, [{ topic, partitions: 1 }]);
  await produce(east, topic, 100, "source");
  await cycleUntil((s) => rowOf(s)?.targetLogEnd === 100n && rowOf(s)?.lag === 0n, `${topic} replicated`);
});

afterAll(async () => {
  await runtime.collector.stop();
  runtime.alerts.stop();
  await runtime.store.close();
});

describe("a second writer on a target topic", () => {
  it("does not inflate MM2's position: the row falls back to Connect's committed position and says why", { timeout: 120_000 }, async () => {
    await runLag(state, { seconds: 0 });
    try {
      const settled = await readSettledPosition(endpoint, connectorNames("east", "west").source, topic, 0);
      await produce(east, topic, 50, "source-more");
      await produce(west, remote, 10, "foreign");
      const [source, target] = [(await fetchLogEnds(east, topic)).get(0)!.high, (await fetchLogEnds(west, remote)).get(0)!.high];
      expect([settled, source, target]).toEqual([100n, 150n, 110n]);
      const snapshot = await cycleUntil((s) => rowOf(s)?.targetDensityIssue !== null, "the foreign record seen");
      const row = rowOf(snapshot)!;
      expect([row.mm2Position, row.positionSource, row.lag, row.targetLogEnd]).toEqual([settled, "committed", source - settled, target]);
      expect(row.targetDensityIssue).toContain("another producer writes to the target topic");
    } finally {
      await runResume(state);
    }
    const caughtUp = await cycleUntil((s) => rowOf(s)?.targetLogEnd === 160n && rowOf(s)?.lag === 0n, "caught up after resume");
    expect(rowOf(caughtUp)!.mm2Position).toBe(150n);
    await sleep(6000);
    await runtime.collector.runCycle();
    expect(runtime.alerts.list({}).filter((a) => a.topic === topic).map((a) => `${a.type} ${a.summary}`)).toEqual([]);
  });
});
