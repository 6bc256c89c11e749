/**
 * Which offset syncs are new since the last cycle. DATA_LOSS, TOPIC_RESET and TARGET_TRUNCATED judge
 * a sync step against the source log start *at the time it happened*; the current snapshot is only a
 * good proxy for steps that appeared since the previous cycle. Old steps are never re-judged: the log
 * start has moved on since (retention deletes old transaction markers too) and would make them look
 * like losses.
 */
import type { CollectorHistory, OffsetSyncPoint } from "@/lib/collector/types";
import type { DetectorMemory } from "./types";

type SyncMarker = DetectorMemory["syncMarkers"][string];

/**
 * The syncs after `marker`, preceded by the marker itself. Empty when there is no marker yet (the
 * first sight of a partition: its history predates us) or the bounded history dropped the marker
 * (too many syncs in between to tell which are new).
 */
export function selectNewSyncs(history: readonly OffsetSyncPoint[], marker: SyncMarker | undefined): OffsetSyncPoint[] {
  if (marker === undefined) return [];
  const upstream = BigInt(marker.upstream);
  const downstream = BigInt(marker.downstream);
  const index = history.findLastIndex((s) => s.upstream === upstream && s.downstream === downstream);
  return index < 0 ? [] : history.slice(index);
}

/**
 * The markers after this cycle, per partition the history holds:
 * - judged this cycle (fresh now and in the previous cycle): its newest sync;
 * - otherwise an existing marker is kept, so the steps are examined once the data is fresh again
 *   (also across a restart: the first cycle after start-up judges nothing and moves nothing);
 * - otherwise, first sight of a fresh partition: its newest sync (older steps are never judged).
 */
export function advanceSyncMarkers(
  markers: DetectorMemory["syncMarkers"],
  history: CollectorHistory,
  judgedKeys: ReadonlySet<string>,
  freshKeys: ReadonlySet<string>,
): DetectorMemory["syncMarkers"] {
  const next: DetectorMemory["syncMarkers"] = {};
  for (const [key, syncs] of history.offsetSyncs) {
    const newest = syncs[syncs.length - 1];
    const old = markers[key];
    const newestMarker = newest === undefined ? undefined : { upstream: newest.upstream.toString(), downstream: newest.downstream.toString() };
    const marker = judgedKeys.has(key) ? (newestMarker ?? old) : (old ?? (freshKeys.has(key) ? newestMarker : undefined));
    if (marker !== undefined) next[key] = marker;
  }
  return next;
}
