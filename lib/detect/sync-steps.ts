/**
 * Which offset syncs are new since the last cycle. DATA_LOSS, TOPIC_RESET and TARGET_TRUNCATED judge
 * a sync step against the source log start *at the time it happened*; the current snapshot is only a
 * good proxy for steps that appeared since the previous cycle. Old steps are never re-judged: the log
 * start has moved on since (retention deletes old transaction markers too) and would make them look
 * like losses.
 */
import type { CollectorHistory, OffsetSyncPoint } from "@/lib/collector/types";
import { createSectionBuilder, createSectionReader } from "./section-changes";
import type { DetectorMemory } from "./types";

type SyncMarker = DetectorMemory["syncMarkers"][string];

/**
 * The offsets of each marker, parsed once per marker object (a marker is kept, as the same object,
 * for as long as no new sync arrives): 100,000 partitions must not parse two decimal strings each
 * every cycle.
 */
const markerOffsets = new WeakMap<SyncMarker, OffsetSyncPoint>();

function readMarker(marker: SyncMarker): OffsetSyncPoint {
  let offsets = markerOffsets.get(marker);
  if (offsets === undefined) {
    offsets = { upstream: BigInt(marker.upstream), downstream: BigInt(marker.downstream) };
    markerOffsets.set(marker, offsets);
  }
  return offsets;
}

function createMarker(sync: OffsetSyncPoint): SyncMarker {
  const marker = { upstream: sync.upstream.toString(), downstream: sync.downstream.toString() };
  markerOffsets.set(marker, sync);
  return marker;
}

/** Index of the last sync equal to the marker, or −1 (the bounded history dropped it). */
function findMarker(history: readonly OffsetSyncPoint[], marker: SyncMarker): number {
  const { upstream, downstream } = readMarker(marker);
  for (let i = history.length - 1; i >= 0; i--) {
    const s = history[i]!;
    if (s.upstream === upstream && s.downstream === downstream) return i;
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
 *   its newest sync (older steps are never judged). An unchanged marker stays the same object.
 */
export function stepSyncs(
  markers: DetectorMemory["syncMarkers"],
  history: CollectorHistory,
  isJudged: (key: string) => boolean,
  isFresh: (key: string) => boolean,
  now: number,
): { newSyncs: Map<string, readonly OffsetSyncPoint[]>; markers: DetectorMemory["syncMarkers"] } {
  const newSyncs = new Map<string, readonly OffsetSyncPoint[]>();
  const next = createSectionBuilder(markers, now);
  const readOld = createSectionReader(markers);
  for (const [key, syncs] of history.offsetSyncs) {
    const newest = syncs[syncs.length - 1];
    const old = readOld(key);
    if (isJudged(key)) {
      const at = old === undefined ? -1 : findMarker(syncs, old);
      if (at >= 0 && at < syncs.length - 1) newSyncs.set(key, syncs.slice(at));
      // The marker is the newest sync already: keep it as it is.
      const marker = at >= 0 && at === syncs.length - 1 ? old : newest === undefined ? old : createMarker(newest);
      if (marker !== undefined) next.put(key, old, marker);
      continue;
    }
    const marker = old ?? (newest !== undefined && isFresh(key) ? createMarker(newest) : undefined);
    if (marker !== undefined) next.put(key, old, marker);
  }
  return { newSyncs, markers: next.finish() };
}
