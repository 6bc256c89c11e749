import type { Dialect } from "./engine/dialect";
import type { Work } from "./engine/steps";
import { pruneHistory } from "./history";
import { pruneNotificationLedger, pruneNotificationOutbox } from "./notification-outbox";
import { pruneRevokedSessions } from "./revoked-sessions";
import { createSeries } from "./series";
import { createTranslationSeries } from "./translation-series";

/** The engine's series of one store, and the prune both stores run (in one transaction: the caller's). */
export function createEngineTables(dialect: Dialect) {
  const series = createSeries(dialect);
  const translations = createTranslationSeries(dialect);
  return {
    series,
    translations,
    /** Drops what each table keeps no longer (tiers.ts windows; 30 days of checkpoints, events, ledger, outbox). */
    *prune(now: number): Work<void> {
      yield* series.prune(now);
      yield* pruneHistory(now);
      yield* translations.prune(now);
      yield* pruneNotificationLedger(now);
      yield* pruneNotificationOutbox(now);
      yield* pruneRevokedSessions(now);
    },
  };
}
