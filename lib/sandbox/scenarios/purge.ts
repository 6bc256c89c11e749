import { pauseConnector, resumeConnector } from "@/lib/connect";
import { connectorNames } from "../mm2-connectors";
import { formatRemoteTopicName } from "../remote-topic";
import { bootstrapOf, type SandboxState } from "../state";
import { fetchLogEnds, sandboxKafka } from "../topics";
import { allTasks, readSettledPosition, waitForConnector } from "./connector-control";
import { findPausedPosition, followCopiesAfterResume, readCandidates } from "./replicated-position";

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
  /**
   * Where MM2 really stood: the offset after the last record it copied from before the deletion. Resumed, that
   * includes records its consumer had fetched before the deletion and copied only after the resume; not resumed,
   * it is what the target held while paused (such records may still land once MM2 is resumed).
   */
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
 * from MM2's position to the old log end is gone before MM2 copied it. The position is read from the
 * records on the target (replicated-position.ts), never from a figure Gapwatch computes.
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
  // Source records from just before MM2's committed position, read before they are deleted: the
  // records on the target are matched to their source offsets among them (after the deletion).
  const candidates = await readCandidates(state, bootstrap, topic, partition, committedPosition);
  const target = { state, bootstrap: bootstrapOf(state, opts.target ?? "west"), topic: formatRemoteTopicName(source, topic), partition };

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
  const paused = await findPausedPosition(target, committedPosition, candidates);

  const resume = opts.resume ?? true;
  let mm2Position = paused.position;
  if (resume) {
    await resumeConnector(endpoint, connector);
    await waitForConnector(endpoint, connector, allTasks("RUNNING"), "RUNNING");
    mm2Position = await followCopiesAfterResume(target, paused, candidates);
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
