import { appendFileSync, createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import { pipeline } from "node:stream";
import { createGunzip } from "node:zlib";
import type { CollectorHistory, OffsetSyncPoint, Snapshot } from "@/lib/collector/types";
import { readSyncHistories, type SyncHistory } from "@/lib/collector/sync-history";
import { decodeTagged, encodeTagged } from "./read-model-codec";

/**
 * A recording of what the collector handed the pipeline, cycle by cycle, so that the same cycles can be replayed
 * through a pipeline later (scripts/replay: the same findings, alerts and read model, or a difference to explain).
 * The file has one line per cycle: a JSON string holding the encodeTagged text of `RecordLine` (bigints, Maps and
 * typed arrays survive exactly). Only the offset-sync histories that changed since the line before are written.
 */
interface RecordLine {
  snapshot: Snapshot;
  /** The cycle of the snapshot the pipeline got as `previous`, or null (the first cycle, or after a restart). */
  previousCycle: number | null;
  /** Offset-sync histories new or changed since the line before, whole. */
  changedSyncs: [string, readonly OffsetSyncPoint[]][];
  /** Offset-sync histories the collector no longer holds. */
  droppedSyncs: string[];
}

/** One recorded cycle as replay gives it: the pipeline's three arguments, rebuilt. */
export interface RecordedCycle {
  current: Snapshot;
  previous: Snapshot | null;
  history: CollectorHistory;
}

/** Appends every cycle it is given to `file` (created when missing). */
export class CycleRecorder {
  /** What the file holds of each history: which one, and the syncs ever appended to it (it grows and is trimmed in place). */
  private readonly written = new Map<string, { history: SyncHistory; appended: number }>();

  constructor(private readonly file: string) {}

  /** Writes one cycle's line; synchronous, so lines are whole and in cycle order. */
  record(current: Snapshot, previous: Snapshot | null, history: CollectorHistory): void {
    const changedSyncs: [string, readonly OffsetSyncPoint[]][] = [];
    const histories = readSyncHistories(history.offsetSyncs);
    for (const [key, held] of histories.entries()) {
      const appended = held.dropped + held.length;
      const before = this.written.get(key);
      if (before !== undefined && before.history === held && before.appended === appended) continue;
      changedSyncs.push([key, held.list().slice()]);
      this.written.set(key, { history: held, appended });
    }
    const droppedSyncs = [...this.written.keys()].filter((key) => !histories.has(key));
    for (const key of droppedSyncs) this.written.delete(key);
    const line: RecordLine = { snapshot: current, previousCycle: previous?.cycle ?? null, changedSyncs, droppedSyncs };
    appendFileSync(this.file, `${JSON.stringify(encodeTagged(line))}\n`);
  }
}

/**
 * Reads a recording written by CycleRecorder, a cycle at a time, with each cycle's history as the collector held it.
 * A file whose name ends in `.gz` is read through gunzip (the recordings committed under tests/recordings are).
 */
export async function* readCycleRecording(file: string): AsyncGenerator<RecordedCycle> {
  const syncs = new Map<string, readonly OffsetSyncPoint[]>();
  const snapshots = new Map<number, Snapshot>();
  let lineNumber = 0;
  // pipeline() destroys the last stream with the first error of any, which ends the line loop with that error.
  const input = file.endsWith(".gz") ? pipeline(createReadStream(file), createGunzip(), () => undefined) : createReadStream(file);
  input.setEncoding("utf8");
  for await (const text of createInterface({ input, crlfDelay: Infinity })) {
    lineNumber++;
    if (text.trim() === "") continue;
    const line = await decodeLine(text, file, lineNumber);
    for (const [key, points] of line.changedSyncs) syncs.set(key, points);
    for (const key of line.droppedSyncs) syncs.delete(key);
    const previous = line.previousCycle === null ? null : (snapshots.get(line.previousCycle) ?? null);
    if (line.previousCycle !== null && previous === null) {
      throw new Error(`${file}:${lineNumber}: cycle ${line.snapshot.cycle} names cycle ${line.previousCycle} as previous, which the recording lacks`);
    }
    // Only the newest snapshot can be a later cycle's previous one.
    snapshots.clear();
    snapshots.set(line.snapshot.cycle, line.snapshot);
    yield { current: line.snapshot, previous, history: { offsetSyncs: new Map(syncs) } };
  }
}

async function decodeLine(text: string, file: string, lineNumber: number): Promise<RecordLine> {
  try {
    const line = (await decodeTagged(JSON.parse(text) as string)) as RecordLine;
    if (typeof line.snapshot?.cycle !== "number" || !Array.isArray(line.changedSyncs)) throw new Error("not a recorded cycle");
    return line;
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new Error(`${file}:${lineNumber} is not a line CycleRecorder wrote (${reason}): record the cycles again`);
  }
}
