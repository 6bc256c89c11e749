import { getLogger } from "@/lib/logger";
import type { ReadModelVersion, Store } from "@/lib/store";
import type { ReadModel, ShardHolding } from "./read-model";
import { type Coverage, coversEveryShard, hasUncoveredOwner, judgeCoverage, restrictToUncovered } from "./shard-coverage";

const log = getLogger("pipeline.published");

/** A published model as a web instance holds it: the version it came from, the shards it held, its body decoded. */
interface Part {
  readonly version: ReadModelVersion;
  readonly holding: ShardHolding | undefined;
  readonly model: ReadModel;
}

/**
 * A collector's row: its newest version, its model (null while it serves nothing: read again when it would), and the
 * ghosts: earlier models of the row whose shards its newer ones no longer hold and no other model covers yet.
 */
interface Row {
  version: ReadModelVersion;
  holding: ShardHolding | undefined;
  model: ReadModel | null;
  ghosts: Part[];
}

type Candidate = { row: Row | null; version: ReadModelVersion; ghost: Part | null };

/**
 * How long after its last publication a row that serves nothing is deleted from the store: a dead collector's (each
 * collector process publishes under an id of its own, so every restart leaves one, up to a whole body each).
 */
export const retireAfterMs = 15 * 60_000;

/**
 * Which part of each collector's published model a web instance serves. Newest first, each model serves only what no
 * newer model's shards cover (shard-coverage.ts): a SIGKILLed collector's flows and alerts stay served, as old as they
 * are, until the collector that gains its shards publishes them; a model wholly covered is left out, its decoded body
 * dropped, and a web instance's start reads no row older than models that hold every shard. A collector that gives up
 * shards (a rebalance, its home cluster unreachable) publishes a model without their flows: its previous model stays
 * as a ghost for those shards until another collector's model holds them. A model that does not name its shards (a
 * collector of an older version) is served, newer-wins by key, until older than `staleAfterMs`. A row that serves nothing
 * (wholly covered, or such a stale model), has no ghost and was last published more than `retireAfterMs` ago is
 * deleted from the store if it is still that version (several web instances may try; one does it).
 */
export class PublishedParts {
  private readonly rows = new Map<string, Row>();

  constructor(
    private readonly store: Pick<Store, "listReadModelVersions" | "readReadModel" | "retireReadModel">,
    private readonly staleAfterMs: number,
    /** decodeReadModel (published-read-models.ts, which holds this class's user). */
    private readonly decode: (body: Buffer) => Promise<ReadModel>,
    private readonly retireAfter = retireAfterMs,
  ) {}

  /**
   * What to merge now: `models()` (each restricted to what it alone serves), and a key that changes when they would;
   * a caller whose key did not change need not make them.
   */
  async select(now: number): Promise<{ key: string; models: () => ReadModel[] }> {
    const versions = await this.store.listReadModelVersions();
    const listed = new Set(versions.map((v) => v.shard));
    for (const shard of this.rows.keys()) if (!listed.has(shard)) this.rows.delete(shard);
    for (const version of versions) await this.followServedRow(version);
    const candidates: Candidate[] = versions.map((version) => ({ row: this.rows.get(version.shard) ?? null, version, ghost: null }));
    for (const row of this.rows.values()) for (const ghost of row.ghosts) candidates.push({ row, version: ghost.version, ghost });
    candidates.sort((a, b) => b.version.takenAt - a.version.takenAt || a.version.shard.localeCompare(b.version.shard));

    const newer: ShardHolding[] = [];
    const served: { part: Part; newer: readonly ShardHolding[]; coverage: Coverage }[] = [];
    const judged: unknown[] = [];
    // Once the newer models hold every shard, every older one is wholly covered (and not read at all).
    let everyShardHeld = false;
    for (const candidate of candidates) {
      const part = everyShardHeld ? null : (candidate.ghost ?? (await this.readRow(candidate.version, newer, now)));
      if (part === null || !this.serves(part, newer, now)) {
        this.release(candidate);
        // Serving nothing (read now or before), or never read because newer models hold every shard; not a row gone.
        if (everyShardHeld || part !== null || this.holdsVersion(candidate.version)) await this.retireIfOld(candidate, now);
        continue;
      }
      const coverage = judgeCoverage(part.holding, newer);
      // Partly covered with nothing of its own left (its flows all moved): its age would only make the merge look old.
      const serving = coverage !== "partial" || hasUncoveredOwner(part.model, newer);
      if (serving) served.push({ part, newer: [...newer], coverage });
      judged.push([part.version, part.holding ?? null, coverage, serving]);
      if (part.holding === undefined) continue;
      newer.push(part.holding);
      everyShardHeld = coversEveryShard(newer);
    }
    return {
      key: JSON.stringify(judged),
      models: () => served.map((s) => (s.coverage === "partial" ? restrictToUncovered(s.part.model, s.newer) : s.part.model)),
    };
  }

  /** Whether a model serves something: not wholly covered by newer ones, nor a stale model without a holding. */
  private serves(part: Pick<Part, "version" | "holding">, newer: readonly ShardHolding[], now: number): boolean {
    if (part.holding === undefined) return now - part.version.takenAt <= this.staleAfterMs;
    return judgeCoverage(part.holding, newer) !== "all";
  }

  /**
   * A row served last refresh (or with ghosts) that published again is read now, before the order is decided: what
   * its previous model held and the new one does not becomes a ghost.
   */
  private async followServedRow(version: ReadModelVersion): Promise<void> {
    const row = this.rows.get(version.shard);
    if (row === undefined || isSameVersion(row.version, version) || (row.model === null && row.ghosts.length === 0)) return;
    const next = await this.read(version.shard);
    if (next === null) return;
    const previous = row.model === null ? null : { version: row.version, holding: row.holding, model: row.model };
    const ghosts = previous !== null && leavesShards(previous.holding, next.holding) ? [...row.ghosts, previous] : row.ghosts;
    this.rows.set(version.shard, { ...next, ghosts });
  }

  /** A row's model, read and decoded when its version changed or its body was dropped; null when the row is gone. */
  private async readRow(version: ReadModelVersion, newer: readonly ShardHolding[], now: number): Promise<Part | null> {
    const row = this.rows.get(version.shard);
    if (row !== undefined && isSameVersion(row.version, version)) {
      if (row.model !== null) return { version: row.version, holding: row.holding, model: row.model };
      if (!this.serves(row, newer, now)) return null;
    }
    const next = await this.read(version.shard);
    if (next === null) return null;
    this.rows.set(version.shard, { ...next, ghosts: row?.ghosts ?? [] });
    return next;
  }

  private async read(shard: string): Promise<Part | null> {
    const stored = await this.store.readReadModel(shard);
    if (stored === null) return null;
    const model = Object.freeze(await this.decode(stored.body));
    return { version: { shard: stored.shard, cycle: stored.cycle, takenAt: stored.takenAt }, holding: model.shardHolding, model };
  }

  private holdsVersion(version: ReadModelVersion): boolean {
    const row = this.rows.get(version.shard);
    return row !== undefined && isSameVersion(row.version, version);
  }

  /** Deletes a row's model that serves nothing from the store once it is old enough (a failure waits for the next try). */
  private async retireIfOld(candidate: Candidate, now: number): Promise<void> {
    const hasGhosts = candidate.ghost !== null || (candidate.row?.ghosts.length ?? 0) > 0;
    if (hasGhosts || now - candidate.version.takenAt <= this.retireAfter) return;
    try {
      await this.store.retireReadModel(candidate.version);
      this.rows.delete(candidate.version.shard);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      log.warn({ shard: candidate.version.shard, err: message }, "retiring a superseded read model failed");
    }
  }

  /** Drops what a candidate left out holds: a row's decoded body (kept: its version and holding), or the ghost. */
  private release(candidate: Candidate): void {
    if (candidate.row === null) return;
    if (candidate.ghost === null) {
      if (isSameVersion(candidate.row.version, candidate.version)) candidate.row.model = null;
    } else {
      candidate.row.ghosts = candidate.row.ghosts.filter((g) => g !== candidate.ghost);
    }
  }
}

/** Whether a row's next model gives up a shard its previous one held (same shard count; a legacy model leaves none). */
function leavesShards(previous: ShardHolding | undefined, next: ShardHolding | undefined): boolean {
  if (previous === undefined || next === undefined || previous.count !== next.count) return false;
  return previous.held.some((s) => !next.held.includes(s));
}

function isSameVersion(a: ReadModelVersion, b: ReadModelVersion): boolean {
  return a.shard === b.shard && a.cycle === b.cycle && a.takenAt === b.takenAt;
}
