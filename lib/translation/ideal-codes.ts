/**
 * How a numeric translation row's ideal position reads, as one byte a row (TranslationRows.ideal): the codes, and
 * per code the ideal's kind with its basis or reason.
 */
import type { IdealOffset } from "./types";

/** How a numeric row's ideal position reads (IdealOffset's kind with its basis or reason). */
export const IdealCode = {
  EXACT_SYNC: 0,
  EXACT_ONE_TO_ONE: 1,
  EXACT_PINNED: 2,
  BRACKET_UPSTREAM_GAP: 3,
  BRACKET_DOWNSTREAM_GAP: 4,
  BRACKET_BEYOND_NEWEST: 5,
  UNKNOWN_BEFORE_FIRST_SYNC: 6,
} as const;

type ExactBasis = Extract<IdealOffset, { kind: "exact" }>["basis"];
type BracketReason = Extract<IdealOffset, { kind: "bracket" }>["reason"];

/**
 * Per IdealCode, in code order: the ideal's kind and its basis (exact) or reason (bracket, unknown). The one table
 * both the made rows (readIdeal) and the publication's columns (numeric-row-columns.ts) read.
 */
export const idealReadings: readonly (
  | { kind: "exact"; why: ExactBasis }
  | { kind: "bracket"; why: BracketReason }
  | { kind: "unknown"; why: "before-first-sync" }
)[] = [
  { kind: "exact", why: "sync" },
  { kind: "exact", why: "one-to-one-run" },
  { kind: "exact", why: "pinned-by-bounds" },
  { kind: "bracket", why: "upstream-gap" },
  { kind: "bracket", why: "downstream-gap" },
  { kind: "bracket", why: "beyond-newest-sync" },
  { kind: "unknown", why: "before-first-sync" },
];
