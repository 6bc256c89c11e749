import { pauseConnector, resumeConnector } from "@/lib/connect";
import { connectorNames } from "../mm2-connectors";
import { type ConsoleRecord, readPartition } from "../kafka-cli";
import { sleep } from "../processes";
import { formatRemoteTopicName } from "../remote-topic";
import { bootstrapOf, type SandboxState } from "../state";
import { fetchLogEnds, sandboxKafka } from "../topics";
import { allTasks, readSettledPosition, waitForConnector } from "./connector-control";

export interface PurgeOptions {
  source?: string;
  target?: string;
  topic?: string;
  partition?: number;
  /** Records produced while MM2 is paused, then deleted (default 500). */
  records?: number;
  /** Resume MM2 afterwards (default true). */
  resume?: boolean;
}

/** Exactly what the purge destroyed, read from Kafka and Connect. Offsets as decimal strings. */
export interface PurgeReport {
  scenario: "purge";
  topic: string;
  partition: number;
  /** Where MM2 really stood: the offset after the last record that reached the target. */
  mm2Position: string;
  /** MM2's position as committed to Connect's offsets topic (can trail the real one by a flush). */
  committedPosition: string;
  logEndBefore: string;
  newLogStart: string;
  firstLostOffset: string;
  lastLostOffset: string;
  lostCount: string;
  resumed: boolean;
  /** When the records were gone: DeleteRecords returned (epoch ms; benchmarks start their detection clock here). */
  faultAt: number;
}

/**
 * Data loss, for real: pause MM2's source connector, wait for its committed position to settle,
 * produce records, delete everything up to the log end with DeleteRecords, resume. Every record
 * from MM2's position to the old log end is gone before MM2 copied it.
 */
export async function runPurge(state: SandboxState, opts: PurgeOptions = {}): Promise<PurgeReport> {
  const source = opts.source ?? "east";
  const topic = opts.topic ?? "orders";
  const partition = opts.partition ?? 2;
  const records = opts.records ?? 500;
  const endpoint = { url: state.connect.url, timeoutMs: 15_000 };
  const connector = connectorNames(source, opts.target ?? "west").source;
  const bootstrap = bootstrapOf(state, source);

  await pauseConnector(endpoint, connector);
  await waitForConnector(endpoint, connector, allTasks("PAUSED"), "PAUSED");
  const committedPosition = await readSettledPosition(endpoint, connector, topic, partition);
  // Source records around MM2's committed position, read before they are deleted: the last one on
  // the target is looked up among them once the target has settled (after the deletion).
  const candidates = await readCandidates(state, bootstrap, topic, partition, committedPosition);

  const kafka = sandboxKafka(bootstrap, "gapwatch-scenario-purge");
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({
    topic,
    acks: -1,
    messages: Array.from({ length: records }, (_, i) => ({ partition, value: JSON.stringify({ topic, partition, seq: i, run: "purge", at: Date.now() }) })),
  });
  await producer.disconnect();

  const logEndBefore = (await fetchLogEnds(bootstrap, topic)).get(partition)!.high;
  const admin = kafka.admin();
  await admin.connect();
  // kafkajs' deleteTopicRecords looks up leaders without loading the topic's metadata first.
  await admin.fetchTopicMetadata({ topics: [topic] });
  await admin.deleteTopicRecords({ topic, partitions: [{ partition, offset: logEndBefore.toString() }] });
  const faultAt = Date.now();
  await admin.disconnect();
  const newLogStart = (await fetchLogEnds(bootstrap, topic)).get(partition)!.low;
  const mm2Position = await findReplicatedPosition(state, source, opts.target ?? "west", topic, partition, committedPosition, candidates);

  const resume = opts.resume ?? true;
  if (resume) {
    await resumeConnector(endpoint, connector);
    await waitForConnector(endpoint, connector, allTasks("RUNNING"), "RUNNING");
  }
  return {
    scenario: "purge",
    topic,
    partition,
    mm2Position: mm2Position.toString(),
    committedPosition: committedPosition.toString(),
    logEndBefore: logEndBefore.toString(),
    newLogStart: newLogStart.toString(),
    firstLostOffset: mm2Position.toString(),
    lastLostOffset: (newLogStart - 1n).toString(),
    lostCount: (newLogStart - mm2Position).toString(),
    resumed: resume,
    faultAt,
  };
}

/** Up to 150 source records from 50 before MM2's committed position (fewer when the log holds fewer). */
async function readCandidates(state: SandboxState, bootstrap: string, topic: string, partition: number, committed: bigint): Promise<ConsoleRecord[]> {
  const ends = (await fetchLogEnds(bootstrap, topic)).get(partition)!;
  const from = committed - 50n > ends.low ? committed - 50n : ends.low;
  const count = Number(ends.high - from < 150n ? ends.high - from : 150n);
  // The console consumer gives up after 8 s without a record: on a loaded machine it can start that
  // slowly and return nothing (60-minute soak, seed 2028). The records exist: read again.
  let records: ConsoleRecord[] = [];
  for (let attempt = 0; count > 0 && records.length < count && attempt < 3; attempt++) {
    records = await readPartition(state, bootstrap, topic, partition, from, count);
  }
  return records;
}

/**
 * The exact position MM2 reached on a paused partition, from the records themselves: once the
 * target's log end has stopped moving (records MM2 had in flight when paused land a little later),
 * the value of its last record is found among the source records read before the purge (workload
 * values are unique). Connect's committed offset alone can trail by a flush.
 */
async function findReplicatedPosition(
  state: SandboxState,
  source: string,
  target: string,
  topic: string,
  partition: number,
  committed: bigint,
  candidates: readonly ConsoleRecord[],
): Promise<bigint> {
  const targetBootstrap = bootstrapOf(state, target);
  const targetTopic = formatRemoteTopicName(source, topic);
  let targetEnd = -1n;
  for (;;) {
    const end = (await fetchLogEnds(targetBootstrap, targetTopic)).get(partition)?.high ?? 0n;
    if (end === targetEnd) break;
    targetEnd = end;
    await sleep(2000);
  }
  if (targetEnd === 0n) return committed;
  const [last] = await readPartition(state, targetBootstrap, targetTopic, partition, targetEnd - 1n, 1);
  const match = candidates.find((r) => r.value === last?.value);
  if (!match) {
    const range = candidates.length ? `${candidates[0]!.offset}..${candidates.at(-1)!.offset}` : "none";
    throw new Error(`could not find the last replicated record of ${targetTopic}/${partition} among source offsets ${range}`);
  }
  return match.offset + 1n;
}
