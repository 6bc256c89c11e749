import { getLogger } from "@/lib/logger";
import type { Store } from "@/lib/store";
import { mergeReadModels } from "./merge-read-models";
import { PublishedParts } from "./published-parts";
import type { ReadModel } from "./read-model";
import { decodeTagged } from "./read-model-codec";
import { decodeColumnar, encodeColumnarPieces, isColumnar } from "./columnar-codec";
import { serveProgress } from "./served-progress";
import { trimReadModel } from "./served-read-model";
import { serveClusterRows } from "./served-clusters";
import { serveFlowRows } from "./served-flows";
import { serveTranslationRows } from "./served-translations";

const log = getLogger("pipeline.published");

/** Writes a collector's read model as its shard's row (replacing the previous cycle's): what pages read of it. */
export async function publishReadModel(store: Store, shard: string, model: ReadModel): Promise<void> {
  // In pieces: the store writes them as they are (SQLite in chunks), without an 85 MiB body made each cycle to hold them.
  const body = encodeReadModelPieces(model);
  await store.publishReadModel({ shard, cycle: model.snapshot.cycle, takenAt: model.snapshot.takenAt, body });
}

/** A model's bytes as published (encodeReadModelPieces), joined. */
export function encodeReadModel(model: ReadModel): Buffer {
  return Buffer.concat(encodeReadModelPieces(model));
}

/**
 * A model's bytes as published, as the pieces they are made of (encodeColumnarPieces: read them before the model
 * changes): the model as served (serveReadModel), in columns (columnar-codec.ts).
 */
export function encodeReadModelPieces(model: ReadModel): Buffer[] {
  return encodeColumnarPieces(serveReadModel(model));
}

/**
 * What the encoder is handed: the model trimmed to what is served (served-read-model.ts), the flows' partitions
 * written from their rows (served-flows.ts), the clusters' partition states from theirs (served-clusters.ts), the
 * translations' rows from their columns (served-translations.ts), the catch-up samples' indexes from columns kept
 * with them (served-progress.ts).
 */
export function serveReadModel(model: ReadModel) {
  const trimmed = trimReadModel(model);
  const snapshot = {
    ...trimmed.snapshot, clusters: serveClusterRows(trimmed.snapshot.clusters), flows: serveFlowRows(trimmed.snapshot.flows),
  };
  return { ...trimmed, snapshot, translations: serveTranslationRows(trimmed.translations), progress: serveProgress(trimmed.progress) };
}

/**
 * A published model from its body: its small parts at once, each long array, Map or Set when first read
 * (columnar-codec.ts), so a new model is served within milliseconds and a page pays only for what it reads. A
 * collector of an older version publishes the columns as text (columnar-codec.ts reads both forms) or, older still,
 * tagged JSON lines (read-model-codec.ts, decoded in slices): a web instance upgraded before the collectors still
 * reads them (docs/operations.md, "Upgrading").
 */
export async function decodeReadModel(body: Buffer): Promise<ReadModel> {
  return (isColumnar(body) ? decodeColumnar(body) : await decodeTagged(body.toString("utf8"))) as ReadModel;
}

/**
 * The read model a web instance serves: the collectors' published models, merged (merge-read-models.ts), each
 * restricted to what no newer model's shards cover (published-parts.ts: a dead collector's flows stay served until
 * another publishes them). Each refresh reads only the (shard, cycle, taken-at) rows; a body is read and decoded only
 * when its shard's version changed, and the decoded models are cached, so a request never waits for the store.
 */
export class PublishedReadModels {
  private readonly parts: PublishedParts;
  private served = "";
  private merged: ReadModel | null = null;
  private timer: NodeJS.Timeout | null = null;
  private refreshing: Promise<void> | null = null;
  private lastReadAt: number | null = null;
  private readonly intervalMs: number;

  constructor(store: Store, options: { intervalMs?: number; staleAfterMs?: number | undefined; retireAfterMs?: number } = {}) {
    this.intervalMs = options.intervalMs ?? 1500;
    const staleAfterMs = options.staleAfterMs ?? Number.POSITIVE_INFINITY;
    this.parts = new PublishedParts(store, staleAfterMs, decodeReadModel, options.retireAfterMs);
  }

  /** The merged model of the latest refresh, or null before any collector published. */
  latest(): ReadModel | null {
    return this.merged;
  }

  /**
   * When a refresh last read and decoded what the store holds without error (null before any): readiness judges this
   * process's reads (a body of a newer format it cannot decode counts as a failed read).
   */
  readAt(): number | null {
    return this.lastReadAt;
  }

  /** Refreshes now, then every `intervalMs` (a failed refresh is logged and the cached model kept). */
  start(): void {
    if (this.timer !== null) return;
    const tick = () => {
      this.refresh()
        .catch((err: unknown) => log.error({ err: err instanceof Error ? err.message : String(err) }, "reading the published read models failed"))
        .finally(() => {
          if (this.timer !== null) this.timer = setTimeout(tick, this.intervalMs);
        });
    };
    this.timer = setTimeout(tick, 0);
  }

  async stop(): Promise<void> {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    await this.refreshing?.catch(() => undefined);
  }

  /** Reads which shards published what, loads the changed ones, merges again when what is served changed. */
  refresh(): Promise<void> {
    this.refreshing ??= this.load().finally(() => {
      this.refreshing = null;
    });
    return this.refreshing;
  }

  private async load(): Promise<void> {
    const now = Date.now();
    const { models, key } = await this.parts.select(now);
    if (key !== this.served) {
      this.merged = mergeReadModels(models());
      this.served = key;
    }
    this.lastReadAt = now;
  }
}
