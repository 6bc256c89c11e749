/**
 * Which offset syncs are new since the last cycle. DATA_LOSS, TOPIC_RESET and TARGET_TRUNCATED judge
 * a sync step against the source log start *at the time it happened*; the current snapshot is only a
 * good proxy for steps that appeared since the previous cycle. Old steps are never re-judged: the log
 * start has moved on since (retention deletes old transaction markers too) and would make them look
 * like losses.
 */
import { readSyncHistories, type SyncHistory } from "@/lib/collector/sync-history";
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

/** A sync's offsets as numbers, checked exact (below 2^53) once where they become a marker. */
function toExactNumber(offset: bigint, key: string, what: string): number {
  const n = Number(offset);
  if (!Number.isSafeInteger(n)) throw new Error(`offset sync of ${key}: ${what} offset ${offset} is beyond 2^53, where offsets stop being exact as numbers`);
  return n;
}

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
  for (const [key, syncs] of readSyncHistories(history.offsetSyncs).entries()) {
    const newest = syncs.length === 0 ? undefined : syncs.point(syncs.length - 1);
    const slot = next.slotOf(key);
    const had = old.present[slot] === 1;
    const upstream = had ? oldUpstream[slot]! : 0;
    const downstream = had ? oldDownstream[slot]! : 0;
    // The steady case: no sync since the marker (the newest is the marker). Judged or not, the marker stays as it
    // is and nothing is new: neither freshness test (a hash lookup each) is asked.
    const steady = had && newest !== undefined && Number(newest.upstream) === upstream;
    if (steady && Number(newest.downstream) === downstream) {
      next.put(slot, false, upstream, downstream);
      continue;
    }
    if (isJudged(key)) {
      const at = had ? findMarker(syncs, upstream, downstream) : -1;
      if (at >= 0 && at < syncs.length - 1) newSyncs.set(key, syncs.list(at));
      // The marker is the newest sync already: it stays as it is.
      if (at >= 0 && at === syncs.length - 1) next.put(slot, false, upstream, downstream);
      else if (newest !== undefined) next.put(slot, true, toExactNumber(newest.upstream, key, "upstream"), toExactNumber(newest.downstream, key, "downstream"));
      else if (had) next.put(slot, false, upstream, downstream);
      continue;
    }
    if (had) next.put(slot, false, upstream, downstream);
    else if (newest !== undefined && isFresh(key)) next.put(slot, true, toExactNumber(newest.upstream, key, "upstream"), toExactNumber(newest.downstream, key, "downstream"));
  }
  return { newSyncs, markers: next.finish() };
}
