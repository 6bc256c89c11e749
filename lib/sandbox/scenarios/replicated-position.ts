import { type ConsoleRecord, readPartition } from "../kafka-cli";
import { sleep } from "../processes";
import type { SandboxState } from "../state";
import { fetchLogEnds } from "../topics";

/** The remote partition MM2 writes a source partition to. */
export interface TargetPartition {
  state: SandboxState;
  bootstrap: string;
  topic: string;
  partition: number;
}

/** MM2's position while paused (the offset after the source record last on the target) and the target's log end then. */
export interface PausedPosition {
  position: bigint;
  targetEnd: bigint;
}

/** Source records MM2 may still copy: a partition lagging more than this at the pause is out of the scenario's reach. */
const maxCandidates = 2000n;

/**
 * The source records from 50 before MM2's committed position to the log end (at most 2,000; fewer when the log holds
 * fewer), read while MM2 is paused and before anything is deleted. Workload values are unique: a target record is
 * matched to its source offset by value.
 */
export async function readCandidates(
  state: SandboxState,
  bootstrap: string,
  topic: string,
  partition: number,
  committed: bigint,
): Promise<ConsoleRecord[]> {
  const ends = (await fetchLogEnds(bootstrap, topic)).get(partition)!;
  const from = committed - 50n > ends.low ? committed - 50n : ends.low;
  const count = Number(ends.high - from < maxCandidates ? ends.high - from : maxCandidates);
  // The console consumer gives up after 8 s without a record: on a loaded machine it can start that
  // slowly and return fewer (60-minute soak, seed 2028). The records exist: read again.
  let records: ConsoleRecord[] = [];
  for (let attempt = 0; count > 0 && records.length < count && attempt < 3; attempt++) {
    records = await readPartition(state, bootstrap, topic, partition, from, count);
  }
  return records;
}

/**
 * The position MM2 reached on a paused partition, from the records themselves: once the target's log end has
 * stopped moving, the value of its last record is found among the candidates. Connect's committed offset alone
 * can trail by a flush. This is not yet final: see followCopiesAfterResume.
 */
export async function findPausedPosition(target: TargetPartition, committed: bigint, candidates: readonly ConsoleRecord[]): Promise<PausedPosition> {
  let targetEnd = -1n;
  for (;;) {
    const end = await readTargetEnd(target);
    if (end === targetEnd) break;
    targetEnd = end;
    await sleep(2000);
  }
  if (targetEnd === 0n) return { position: committed, targetEnd };
  const [last] = await readPartition(target.state, target.bootstrap, target.topic, target.partition, targetEnd - 1n, 1);
  const match = candidates.find((r) => r.value === last?.value);
  if (!match) {
    const range = candidates.length ? `${candidates[0]!.offset}..${candidates.at(-1)!.offset}` : "none";
    throw new Error(`could not find the last replicated record of ${target.topic}/${target.partition} among source offsets ${range}`);
  }
  return { position: match.offset + 1n, targetEnd };
}

/** How long after the resume the target may take to show where the copies from before the deletion end. */
const followTimeoutMs = 60_000;

/**
 * The final position, read after the resume. MM2's consumer keeps records it fetched before the pause in its fetch
 * buffer and copies them first when resumed, although they were deleted at the source meanwhile; only its next
 * fetch falls below the new log start and resets (seen in the sandbox: 1–2 such records in 2 of 3 purges under
 * the workload, landing on the target 10–15 s after the pause). They were copied, so they are not lost. The copies
 * from before the deletion end where the first target record after the paused log end is no candidate (a record
 * from the new log start on), or, on a partition without new records, once the target has stopped moving.
 */
export async function followCopiesAfterResume(
  target: TargetPartition,
  paused: PausedPosition,
  candidates: readonly ConsoleRecord[],
): Promise<bigint> {
  const sourceOffsetOf = new Map(candidates.map((r) => [r.value, r.offset]));
  const deadline = Date.now() + followTimeoutMs;
  let position = paused.position;
  let read = paused.targetEnd;
  let previousEnd = -1n;
  while (Date.now() < deadline) {
    await sleep(2000);
    const end = await readTargetEnd(target);
    if (end > read) {
      const count = Number(end - read < 500n ? end - read : 500n);
      const records = await readPartition(target.state, target.bootstrap, target.topic, target.partition, read, count);
      for (const record of records) {
        const offset = sourceOffsetOf.get(record.value);
        if (offset === undefined) return position;
        position = offset + 1n;
      }
      read += BigInt(records.length);
    } else if (end === previousEnd) {
      return position;
    }
    previousEnd = end;
  }
  throw new Error(`${target.topic}/${target.partition}: no record from the new log start reached the target within ${followTimeoutMs / 1000}s of the resume`);
}

async function readTargetEnd(target: TargetPartition): Promise<bigint> {
  return (await fetchLogEnds(target.bootstrap, target.topic)).get(target.partition)?.high ?? 0n;
}
