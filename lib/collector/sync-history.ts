/**
 * How readers see the collector's offset-sync histories: per `<flowId>|<topic>|<partition>` key, the partition's
 * syncs oldest first, read as numbers (`upstream(i)`, `downstream(i)`) on hot paths and as `OffsetSyncPoint`s
 * (bigints, made on demand) where a value is printed, stored or shown. The collector keeps them in a
 * SyncHistoryStore (sync-history-store.ts); a Map of point arrays (a decoded read model, a recording, a test) is
 * read through the same interface (readSyncHistories).
 */
import type { OffsetSyncPoint } from "./types";

/** One partition's offset syncs, oldest first. */
export interface SyncHistory {
  /** How many syncs it holds. */
  readonly length: number;
  /**
   * Syncs trimmed from its front since it was made (the bound): sync i is the (dropped + i)-th ever appended, so a
   * reader that consumed n of them finds where to resume without comparing syncs.
   */
  readonly dropped: number;
  /** Sync i's upstream offset as a number (exact in the collector's store; beyond 2^53 only in a Map's points). */
  upstream(i: number): number;
  /** Sync i's downstream offset as a number. */
  downstream(i: number): number;
  /** Sync i as bigints; the newest one is the same object until the next sync is appended. */
  point(i: number): OffsetSyncPoint;
  /** The syncs from `from` on as points (new objects where the history holds numbers). */
  list(from?: number): readonly OffsetSyncPoint[];
}

/** Every partition's history, by `flowPartitionKey`. */
export interface SyncHistories {
  get(key: string): SyncHistory | undefined;
  has(key: string): boolean;
  keys(): IterableIterator<string>;
  /** Every key with its history (one pass, no lookup per key). */
  entries(): Generator<[string, SyncHistory]>;
  /** The key's syncs as points, empty without a history (evidence, JSON, the read model). */
  list(key: string): readonly OffsetSyncPoint[];
}

/** What CollectorHistory.offsetSyncs may hold: the collector's store, or points by key (decoded JSON, tests). */
export type SyncHistorySource = SyncHistories | ReadonlyMap<string, readonly OffsetSyncPoint[]>;

/** Every Map read so far, wrapped once. */
const wrapped = new WeakMap<ReadonlyMap<string, readonly OffsetSyncPoint[]>, PointMapHistories>();
/**
 * Every array of points read so far, wrapped once, so a partition's history is the same object cycle after cycle
 * while its array is (a recording's cycles are new Maps holding the unchanged arrays: FlowSyncModels resumes).
 */
const arrayViews = new WeakMap<readonly OffsetSyncPoint[], PointArrayHistory>();

/** Reads `source` through the SyncHistories interface (a Map of points is wrapped, once per Map). */
export function readSyncHistories(source: SyncHistorySource): SyncHistories {
  if (!(source instanceof Map)) return source as SyncHistories;
  const map = source as ReadonlyMap<string, readonly OffsetSyncPoint[]>;
  let histories = wrapped.get(map);
  if (histories === undefined) wrapped.set(map, (histories = new PointMapHistories(map)));
  return histories;
}

/** Reads an array of points as a SyncHistory (the same reader for the same array). */
export function readPointHistory(points: readonly OffsetSyncPoint[]): SyncHistory {
  let view = arrayViews.get(points);
  if (view === undefined) arrayViews.set(points, (view = new PointArrayHistory(points)));
  return view;
}

/** Lists every key and its syncs as points (the rare paths that write or merge them all). */
export function* listSyncHistories(source: SyncHistorySource): Generator<[string, readonly OffsetSyncPoint[]]> {
  if (source instanceof Map) {
    yield* (source as ReadonlyMap<string, readonly OffsetSyncPoint[]>).entries();
    return;
  }
  const histories = source as SyncHistories;
  for (const key of histories.keys()) yield [key, histories.list(key)];
}

/** A Map of point arrays read as SyncHistories; each array is wrapped once. */
class PointMapHistories implements SyncHistories {
  constructor(private readonly map: ReadonlyMap<string, readonly OffsetSyncPoint[]>) {}

  get(key: string): SyncHistory | undefined {
    const points = this.map.get(key);
    return points === undefined ? undefined : readPointHistory(points);
  }

  has(key: string): boolean {
    return this.map.has(key);
  }

  keys(): IterableIterator<string> {
    return this.map.keys();
  }

  *entries(): Generator<[string, SyncHistory]> {
    for (const [key, points] of this.map) yield [key, readPointHistory(points)];
  }

  list(key: string): readonly OffsetSyncPoint[] {
    return this.map.get(key) ?? [];
  }
}

/**
 * An array of points read as a SyncHistory. Its owner may append to it or trim its front in place (as the collector
 * once did, and tests still do): `dropped` follows by finding the newest point seen before, by identity.
 */
class PointArrayHistory implements SyncHistory {
  private trimmed = 0;
  private seenLength = 0;
  private seenFirst: OffsetSyncPoint | undefined = undefined;
  private seenLast: OffsetSyncPoint | undefined = undefined;

  constructor(private readonly points: readonly OffsetSyncPoint[]) {}

  get length(): number {
    return this.points.length;
  }

  get dropped(): number {
    const points = this.points;
    if (points.length !== this.seenLength || points[0] !== this.seenFirst) {
      if (this.seenLength > 0 && points[0] !== this.seenFirst) {
        const at = points.lastIndexOf(this.seenLast!);
        this.trimmed += at < 0 ? this.seenLength : this.seenLength - 1 - at;
      }
      this.seenLength = points.length;
      this.seenFirst = points[0];
      this.seenLast = points[points.length - 1];
    }
    return this.trimmed;
  }

  upstream(i: number): number {
    return Number(this.points[i]!.upstream);
  }

  downstream(i: number): number {
    return Number(this.points[i]!.downstream);
  }

  point(i: number): OffsetSyncPoint {
    return this.points[i]!;
  }

  list(from = 0): readonly OffsetSyncPoint[] {
    return from === 0 ? this.points : this.points.slice(from);
  }
}
