import { afterAll, describe, expect, it } from "vitest";
import { describeTopicIds } from "@/lib/sandbox/kafka-cli";
import { sleep } from "@/lib/sandbox/processes";
import { runFailTask, runLag, runPurge, runRecover, runResume, runTopicReset } from "@/lib/sandbox/scenarios";
import { readSandboxState } from "@/lib/sandbox/state";
import { fetchLogEnds, sandboxKafka } from "@/lib/sandbox/topics";
import { waitUntilReplicating } from "../support/runtime";

/** Connect's view of a connector, read with plain fetch (independent of lib/connect). */
async function readConnectorStatus(url: string, name: string): Promise<{ connector: { state: string }; tasks: { id: number; state: string; trace?: string }[] }> {
  const res = await fetch(`${url}/connectors/${name}/status`);
  return (await res.json()) as { connector: { state: string }; tasks: { id: number; state: string; trace?: string }[] };
}

async function produce(bootstrap: string, topic: string, partition: number, count: number): Promise<void> {
  const producer = sandboxKafka(bootstrap).producer();
  await producer.connect();
  await producer.send({ topic, acks: -1, messages: Array.from({ length: count }, (_, seq) => ({ partition, value: JSON.stringify({ topic, partition, seq, run: "scenario-test" }) })) });
  await producer.disconnect();
}

// fail-task, recover, lag and resume reconfigure MM2's source connector: the next file needs it copying again.
afterAll(() => waitUntilReplicating(readSandboxState()));

describe("sandbox fault scenarios take real effect in Kafka and Connect", () => {
  const state = readSandboxState();
  const east = state.clusters.east!.bootstrap;
  const west = state.clusters.west!.bootstrap;

  it("purge deletes records MM2 had not replicated: the source log start passes MM2's position", async () => {
    await produce(east, "orders", 2, 30);
    await sleep(8000); // let MM2 copy these, so its position is past 0
    const report = await runPurge(state, { topic: "orders", partition: 2, records: 200 });
    const ends = (await fetchLogEnds(east, "orders")).get(2)!;
    expect(ends.low).toBe(BigInt(report.newLogStart));
    expect(BigInt(report.newLogStart)).toBeGreaterThan(BigInt(report.committedPosition));
    expect(BigInt(report.newLogStart)).toBeGreaterThan(BigInt(report.mm2Position));
    expect(BigInt(report.lostCount)).toBe(BigInt(report.newLogStart) - BigInt(report.mm2Position));
    expect(BigInt(report.lostCount)).toBeGreaterThanOrEqual(200n);
    expect(report.firstLostOffset).toBe(report.mm2Position);
    expect(BigInt(report.lastLostOffset)).toBe(BigInt(report.newLogStart) - 1n);
  });

  it("fail-task drives MM2's source task into FAILED with the transform's DataException, and recover undoes it", async () => {
    const failed = await runFailTask(state);
    const status = await readConnectorStatus(state.connect.url, failed.connector);
    const task = status.tasks.find((t) => t.id === failed.taskId)!;
    expect(task.state).toBe("FAILED");
    expect(task.trace).toContain("org.apache.kafka.connect.errors.DataException");
    expect(failed.rootCause).toContain("Unexpected type in Cast transformation");

    const recovered = await runRecover(state);
    expect(recovered.state).toBe("RUNNING");
    const after = await readConnectorStatus(state.connect.url, failed.connector);
    expect(after.tasks.every((t) => t.state === "RUNNING")).toBe(true);
  });

  it("lag pauses replication: records produced meanwhile stay unreplicated until resume", async () => {
    await runLag(state, { seconds: 0 });
    const targetBefore = (await fetchLogEnds(west, "east.clicks")).get(5)?.high ?? 0n;
    await produce(east, "clicks", 5, 50);
    await sleep(7000);
    expect((await fetchLogEnds(west, "east.clicks")).get(5)?.high ?? 0n).toBe(targetBefore);
    await runResume(state);
    const sourceEnd = (await fetchLogEnds(east, "clicks")).get(5)!.high;
    const deadline = Date.now() + 60_000;
    let targetEnd = targetBefore;
    while (Date.now() < deadline && targetEnd < sourceEnd) {
      await sleep(1000);
      targetEnd = (await fetchLogEnds(west, "east.clicks")).get(5)?.high ?? 0n;
    }
    expect(targetEnd - targetBefore).toBe(50n);
  });

  it("topic-reset deletes and recreates a source topic: new topic ID, log ends restart from 0", async () => {
    await produce(east, "payments", 0, 20);
    const report = await runTopicReset(state, { topic: "payments", records: 30 });
    const ids = await describeTopicIds(state, east, ["payments"]);
    expect(ids.get("payments")).toBe(report.newTopicId);
    expect(report.newTopicId).not.toBe(report.oldTopicId);
    expect(Number(report.logEndsBefore[0])).toBeGreaterThanOrEqual(20);
    const ends = await fetchLogEnds(east, "payments");
    expect(ends.size).toBe(report.partitions);
    expect([...ends.values()].reduce((s, o) => s + o.high, 0n)).toBe(30n);
    expect([...ends.values()].every((o) => o.low === 0n)).toBe(true);
  });
});
