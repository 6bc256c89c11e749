/**
 * Which offset syncs are new since the last cycle. DATA_LOSS, TOPIC_RESET and TARGET_TRUNCATED judge
 * a sync step against the source log start *at the time it happened*; the current snapshot is only a
 * good proxy for steps that appeared since the previous cycle. Old steps are never re-judged: the log
 * start has moved on since (retention deletes old transaction markers too) and would make them look
 * like losses.
 */
import { readSyncHistories, type SyncHistories, type SyncHistory } from "@/lib/collector/sync-history";
import { SyncHistoryStore } from "@/lib/collector/sync-history-store";
import type { CollectorHistory, OffsetSyncPoint } from "@/lib/collector/types";
import { createMarkTableBuilder, type MarkColumnsSpec, readExactOffset, readMarkTable } from "./mark-columns";
import type { DetectorMemory } from "./types";

type SyncMarker = DetectorMemory["syncMarkers"][string];

/**
 * The markers as columns (mark-columns.ts): upstream and downstream offsets as numbers. A stored marker whose offsets
 * are not exact as numbers is forgotten: its partition's next sync starts a new marker (its steps until then are
 * not judged, as after a restart with nothing stored).
 */
const markerSpec: MarkColumnsSpec<SyncMarker> = {
  name: "syncMarkers",
  width: 2,
  read(marker) {
    const upstream = readExactOffset(marker.upstream);
    const downstream = readExactOffset(marker.downstream);
    return upstream === null || downstream === null ? null : { numbers: [upstream, downstream] };
  },
  make(columns, slot) {
    return { upstream: String(columns[0]![slot]), downstream: String(columns[1]![slot]) };
  },
};

/**
 * Sync `i`'s offsets as numbers, checked exact (below 2^53) once where they become a marker: the error prints the
 * offset as the sync holds it.
 */
function readExactSync(syncs: SyncHistory, i: number, key: string): [number, number] {
  const upstream = syncs.upstream(i);
  const downstream = syncs.downstream(i);
  if (!Number.isSafeInteger(upstream)) throwBeyondExact(key, "upstream", syncs.point(i).upstream);
  if (!Number.isSafeInteger(downstream)) throwBeyondExact(key, "downstream", syncs.point(i).downstream);
  return [upstream, downstream];
}

function throwBeyondExact(key: string, what: string, offset: bigint): never {
  throw new Error(`offset sync of ${key}: ${what} offset ${offset} is beyond 2^53, where offsets stop being exact as numbers`);
}

/** A store's keys and histories in its order, kept between cycles (listHistories). */
interface HistoryList {
  /** Only ever appended to (a position names one key for the array's life): MarkTableBuilder.slotOfKeyAt. */
  keys: string[];
  histories: SyncHistory[];
}

const listsByStore = new WeakMap<SyncHistoryStore, HistoryList>();

/**
 * Every key and its history, in the order `entries()` gives them, without a pair made per key. The collector's store
 * only ever adds keys, at the end of its order, and keeps one history object per key: its list is kept and the new
 * keys appended (its keys walked only in a cycle that added some). Another source is listed anew.
 */
function listHistories(histories: SyncHistories): HistoryList {
  if (!(histories instanceof SyncHistoryStore)) {
    const list: HistoryList = { keys: [], histories: [] };
    for (const [key, syncs] of histories.entries()) {
      list.keys.push(key);
      list.histories.push(syncs);
    }
    return list;
  }
  let list = listsByStore.get(histories);
  if (list === undefined) listsByStore.set(histories, (list = { keys: [], histories: [] }));
  if (list.keys.length === histories.size) return list;
  let n = 0;
  for (const key of histories.keys()) {
    if (n++ < list.keys.length) continue;
    list.keys.push(key);
    list.histories.push(histories.get(key)!);
  }
  return list;
}

/**
 * Per markers section made from a SyncHistoryStore: for its keys array, per position, the store's appended count
 * (SyncHistoryStore.appendedCounts) at which the marker put there was the history's newest sync (NaN: not known to
 * be). While the count stays, the marker is still the newest sync: the steady partition's ring is not read.
 */
interface NewestMarkers {
  keys: readonly string[];
  appended: Float64Array;
}

const newestBySection = new WeakMap<object, NewestMarkers>();

/** Index of the last sync equal to the marker (its offsets as numbers), or −1 (the bounded history dropped it). */
function findMarker(history: SyncHistory, upstream: number, downstream: number): number {
  for (let i = history.length - 1; i >= 0; i--) {
    if (history.upstream(i) === upstream && history.downstream(i) === downstream) return i;
  }
  return -1;
}

/**
 * One pass over the sync history, per partition it holds:
 * - `newSyncs`, for partitions judged this cycle (fresh now and in the previous cycle): the syncs
 *   after the marker, preceded by the marker itself — only where that makes at least one step.
 *   None when there is no marker yet (the first sight of a partition: its history predates us) or
 *   the bounded history dropped the marker (too many syncs in between to tell which are new).
 * - `markers` after this cycle: judged → its newest sync; otherwise an existing marker is kept, so
 *   the steps are examined once the data is fresh again (also across a restart: the first cycle
 *   after start-up judges nothing and moves nothing); otherwise, first sight of a fresh partition:
 *   its newest sync (older steps are never judged). Only a marker that changed is listed as a change.
 */
export function stepSyncs(
  markers: DetectorMemory["syncMarkers"],
  history: CollectorHistory,
  isJudged: (key: string) => boolean,
  isFresh: (key: string) => boolean,
  now: number,
): { newSyncs: Map<string, readonly OffsetSyncPoint[]>; markers: DetectorMemory["syncMarkers"] } {
  const newSyncs = new Map<string, readonly OffsetSyncPoint[]>();
  const old = readMarkTable(markers, markerSpec);
  const [oldUpstream, oldDownstream] = old.columns as [Float64Array, Float64Array];
  const next = createMarkTableBuilder(markers, now, markerSpec);
  const source = readSyncHistories(history.offsetSyncs);
  const { keys, histories } = listHistories(source);
  // The store's slots are its keys' positions (keys() lists them in slot order).
  const counts = source instanceof SyncHistoryStore ? source.appendedCounts : undefined;
  const known = newestBySection.get(markers);
  const appendedBefore = known !== undefined && known.keys === keys ? known.appended : undefined;
  const appended = new Float64Array(counts === undefined ? 0 : keys.length).fill(Number.NaN);
  // Notes that the marker put at `h` is its history's newest sync.
  const noteNewest = (h: number) => {
    if (counts !== undefined) appended[h] = counts[h]!;
  };
  for (let h = 0; h < keys.length; h++) {
    const slot = next.slotOfKeyAt(keys, h);
    const had = old.present[slot] === 1;
    // The steadiest case: nothing appended since the marker was the newest sync; neither the ring nor the key read.
    if (had && appendedBefore !== undefined && h < appendedBefore.length && appendedBefore[h] === counts![h]) {
      next.keep(slot);
      appended[h] = appendedBefore[h]!;
      continue;
    }
    const key = keys[h]!;
    const syncs = histories[h]!;
    const length = syncs.length;
    const upstream = had ? oldUpstream[slot]! : 0;
    const downstream = had ? oldDownstream[slot]! : 0;
    // The steady case: no sync since the marker (the newest is the marker), compared as numbers. Judged or not, the
    // marker stays as it is and nothing is new: neither freshness test (a hash lookup each) is asked.
    if (had && length > 0 && syncs.upstream(length - 1) === upstream && syncs.downstream(length - 1) === downstream) {
      next.keep(slot);
      noteNewest(h);
      continue;
    }
    if (isJudged(key)) {
      const at = had ? findMarker(syncs, upstream, downstream) : -1;
      if (at >= 0 && at < length - 1) newSyncs.set(key, syncs.list(at));
      // The marker is the newest sync already: it stays as it is.
      if (at >= 0 && at === length - 1) next.keep(slot);
      else if (length > 0) next.put(slot, true, ...readExactSync(syncs, length - 1, key));
      else if (had) next.keep(slot);
      if (length > 0) noteNewest(h);
      continue;
    }
    if (had) next.keep(slot);
    else if (length > 0 && isFresh(key)) {
      next.put(slot, true, ...readExactSync(syncs, length - 1, key));
      noteNewest(h);
    }
  }
  const section = next.finish();
  if (counts !== undefined) newestBySection.set(section, { keys, appended });
  return { newSyncs, markers: section };
}
