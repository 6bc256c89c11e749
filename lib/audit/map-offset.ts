import { findLastAtOrBefore, mapBetweenSyncs, type SyncPoint } from "@/lib/mm2";

/**
 * Where the audit looks for the copy of source offset `upstream` on the target, from the latest epoch of the
 * partition's offset syncs (strictly increasing in both offsets):
 * - exact: a sync (u, d) names it, or it lies in a contiguous run — records copied without a gap, where
 *   target = d + (source − u). MM2 writes a sync at once after any upstream gap (OffsetSyncWriter:
 *   `upstreamOffset - previousUpstream != 1`), so between two syncs with equal advances the run is proven
 *   (`proven`), and past the newest sync the records it copied form such a run when the target is dense (MM2 its
 *   only, non-transactional writer) — but only as far as the syncs read so far tell: MM2 may have written the sync
 *   of a later gap after Gapwatch read the syncs. So past the newest sync a copy found elsewhere is still a match,
 *   and a difference proves nothing (`proven` false: no mismatch, no missing).
 * - bracket: only low ≤ target ≤ high is provable (an upstream gap between two syncs, or a target that is not
 *   dense). Then the audit compares by CONTENT over the whole bracket: the record is matched when one target
 *   record in it has the same key, value, headers and timestamp hashes, missing when the fetch covered the
 *   bracket and none has (reported as "bracketed").
 * - none: before the epoch's first sync (or no sync): nothing says where the copy is; not audited.
 * `targetEnd` bounds a bracket that is open above (past the newest sync of a target that is not dense).
 */
export type AuditMapping =
  | { kind: "exact"; target: bigint; proven: boolean }
  | { kind: "bracket"; low: bigint; high: bigint }
  | { kind: "none" };

export function mapSourceOffset(epoch: readonly SyncPoint[], upstream: bigint, dense: boolean, targetEnd: bigint): AuditMapping {
  const index = findLastAtOrBefore(epoch, upstream);
  const sync = epoch[index];
  if (sync === undefined) return { kind: "none" };
  const mapped = mapBetweenSyncs(sync, epoch[index + 1], upstream, { denseDownstream: dense });
  if (mapped.kind === "exact") return { kind: "exact", target: mapped.downstream, proven: true };
  if (mapped.kind === "none") return { kind: "none" };
  if (mapped.high !== null) return { kind: "bracket", low: mapped.low, high: mapped.high };
  if (dense) return { kind: "exact", target: sync.downstream + (upstream - sync.upstream), proven: false };
  return targetEnd > mapped.low ? { kind: "bracket", low: mapped.low, high: targetEnd - 1n } : { kind: "none" };
}
