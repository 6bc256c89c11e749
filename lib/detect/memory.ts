/**
 * Detector memory lifecycle: a fresh memory, and reading one back from storage. The memory is JSON
 * the collector persists between cycles and across restarts; what comes back from disk is checked,
 * because a memory written by an older version must not crash detection.
 */
import { z } from "zod";
import { FindingType, Severity, type DetectorMemory } from "./types";

const scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);
/** A stored Finding (also the translation findings kept with the checkpoint watch, lib/pipeline). */
export const findingSchema = z.object({
  key: z.string(),
  type: z.enum(FindingType),
  severity: z.enum(Severity),
  flow: z.string().optional(),
  cluster: z.string().optional(),
  topic: z.string().optional(),
  partition: z.number().optional(),
  group: z.string().optional(),
  summary: z.string(),
  evidence: z.record(z.string(), scalar),
  observedAt: z.number(),
});
const offsetString = z.string().regex(/^-?\d+$/);
const memorySchema = z.object({
  version: z.literal(1),
  events: z.array(
    z.object({
      scope: z.string(),
      tag: z.string(),
      range: z.object({ first: offsetString, last: offsetString, exact: z.boolean() }).nullable(),
      firstSeen: z.number(),
      lastSeen: z.number(),
      finding: findingSchema,
    }),
  ),
  syncMarkers: z.record(z.string(), z.object({ upstream: offsetString, downstream: offsetString })),
  // Marks written before the not-running time was kept count none of it, as they did then.
  positions: z.record(
    z.string(),
    z
      .object({ position: offsetString, movedAt: z.number(), logEndAtMove: offsetString, notRunningMs: z.number().optional(), seenAt: z.number().optional() })
      .transform((m) => ({ ...m, notRunningMs: m.notRunningMs ?? 0, seenAt: m.seenAt ?? m.movedAt })),
  ),
  // Memories written before MM2_POSITION_MOVED existed have no marks: start with none.
  committed: z
    .record(z.string(), z.object({
      committed: offsetString,
      highest: offsetString,
      topicId: z.string().nullable(),
      // Flows split over several source connectors: without it a restart started every mark anew (a move made while
      // Gapwatch was down went unseen). Marks stored before it was kept have none, as they had then.
      connector: z.string().optional(),
      replacedCommitted: offsetString.optional(),
      goneSince: z.number().int().nonnegative().optional(),
    }))
    .default({}),
  lastFindings: z.array(findingSchema),
});

/** An empty memory: what the detectors start with when nothing was persisted. */
export function createDetectorMemory(): DetectorMemory {
  return { version: 1, events: [], syncMarkers: {}, positions: {}, committed: {}, lastFindings: [] };
}

/**
 * Reads a persisted memory (the parsed JSON). Anything unreadable gives an empty memory and the
 * reason: forgetting is safe (first-sight rules apply), crashing the collector is not.
 */
export function parseDetectorMemory(json: unknown): { memory: DetectorMemory; error: string | null } {
  const parsed = memorySchema.safeParse(json);
  if (parsed.success) return { memory: parsed.data, error: null };
  return { memory: createDetectorMemory(), error: z.prettifyError(parsed.error) };
}
