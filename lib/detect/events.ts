/**
 * Event findings (DATA_LOSS, TOPIC_RESET, TARGET_TRUNCATED, UNCLEAN_TRUNCATION) happen once but are
 * often seen over several cycles and by several signals. This module merges every sighting of one
 * event into one held event with one stable key, and keeps re-emitting it for `eventHoldMs` after
 * it was last seen so its alert does not resolve a minute after the page.
 *
 * LOGIC (a candidate merges into a held event when):
 * - same scope (detector type + flow/cluster + topic + partition) and same tag, and
 * - the held event was seen less than `eventHoldMs` ago, and
 * - for ranged events (DATA_LOSS): the offset ranges overlap or touch.
 * Merged ranges: exact (offset-sync) evidence replaces an estimate; otherwise the union is kept, and
 * the finding is re-rendered from the merged range. Unranged events keep their first finding and
 * only fill in evidence that was unknown (the first sighting is the one that saw "before").
 * The key never changes after the first sighting, even when a later sighting refines the range.
 */
import type { Evidence, Finding, HeldEvent, HeldRange } from "./types";

/** An offset range as detectors compute it. */
export interface OffsetRange {
  first: bigint;
  last: bigint;
  exact: boolean;
}

/** One sighting of an event, from one detector signal. */
export interface EventCandidate {
  scope: string;
  tag: string;
  /** Appended to the scope to form the key of a new event (e.g. the first lost offset). */
  keySuffix: string;
  range: OffsetRange | null;
  /**
   * An unranged event's finding is its first sighting's (it saw "before"), later ones only filling unknown evidence;
   * true: this sighting's finding replaces it (a held event judged again with what was learned since).
   */
  replaces?: boolean;
  /** Builds the finding for the event as merged (its key, merged range, first sighting). */
  render: (key: string, range: OffsetRange | null, firstSeen: number) => Finding;
}

/** Maximum held events: the oldest-seen are dropped first (memory must stay bounded). */
const MAX_HELD_EVENTS = 5_000;

/** Merges this cycle's candidates into the held events; returns the new held list. */
export function mergeEvents(held: readonly HeldEvent[], candidates: readonly EventCandidate[], now: number): HeldEvent[] {
  const events = held.map((e) => ({ ...e }));
  for (const candidate of candidates) {
    const existing = events.find((e) => e.scope === candidate.scope && e.tag === candidate.tag && rangesTouch(e.range, candidate.range));
    if (existing === undefined) {
      events.push(createEvent(events, candidate, now));
      continue;
    }
    const range = mergeRanges(fromHeld(existing.range), candidate.range);
    const rendered = candidate.render(existing.finding.key, range, existing.firstSeen);
    existing.lastSeen = now;
    // A ranged event is re-rendered from its merged range; any other keeps its first sighting
    // (which knows the "before" values) and only learns what it did not know yet.
    const replaced = range !== null || candidate.replaces === true;
    const evidence = replaced ? rendered.evidence : fillEvidence(existing.finding.evidence, rendered.evidence);
    const base = replaced ? rendered : existing.finding;
    existing.finding = { ...base, evidence: { ...evidence, ...mergeSignals(existing.finding.evidence, rendered.evidence) } };
    existing.range = toHeld(range);
  }
  return events;
}

/** Drops events not seen for `holdMs`, then the oldest beyond the cap. */
export function pruneEvents(held: readonly HeldEvent[], now: number, holdMs: number): HeldEvent[] {
  const live = held.filter((e) => now - e.lastSeen < holdMs);
  if (live.length <= MAX_HELD_EVENTS) return live;
  return [...live].sort((a, b) => b.lastSeen - a.lastSeen).slice(0, MAX_HELD_EVENTS);
}

/** The findings of all held events, as emitted this cycle. */
export function listEventFindings(held: readonly HeldEvent[]): Finding[] {
  return held.map((e) => ({ ...e.finding, observedAt: e.lastSeen }));
}

function createEvent(events: readonly HeldEvent[], candidate: EventCandidate, now: number): HeldEvent {
  let key = `${candidate.scope}|${candidate.keySuffix}`;
  // A suffix can repeat after its first event expired from a different tag; keep keys unique.
  if (events.some((e) => e.finding.key === key)) key = `${key}|${now}`;
  return {
    scope: candidate.scope,
    tag: candidate.tag,
    range: toHeld(candidate.range),
    firstSeen: now,
    lastSeen: now,
    finding: candidate.render(key, candidate.range, now),
  };
}

function rangesTouch(held: HeldRange | null, range: OffsetRange | null): boolean {
  if (held === null || range === null) return held === range;
  const first = BigInt(held.first);
  const last = BigInt(held.last);
  return range.first <= last + 1n && first <= range.last + 1n;
}

function mergeRanges(held: OffsetRange | null, range: OffsetRange | null): OffsetRange | null {
  if (held === null || range === null) return range ?? held;
  // Offset-sync evidence says exactly what MM2 copied; it overrides a position-based estimate.
  if (range.exact && !held.exact) return range;
  return {
    first: held.first < range.first ? held.first : range.first,
    last: held.last > range.last ? held.last : range.last,
    exact: held.exact || range.exact,
  };
}

/** Fills unknown (null or missing) values. */
function fillEvidence(first: Evidence, later: Evidence): Evidence {
  const merged: Evidence = { ...first };
  for (const [name, value] of Object.entries(later)) if (merged[name] === null || merged[name] === undefined) merged[name] = value;
  return merged;
}

/** `detectedBy` accumulates every signal that saw the event, in order of first sighting. */
function mergeSignals(first: Evidence, later: Evidence): Evidence {
  const a = first.detectedBy;
  const b = later.detectedBy;
  if (typeof a !== "string" || typeof b !== "string") return {};
  return { detectedBy: [...new Set([...a.split(","), ...b.split(",")])].join(",") };
}

function toHeld(range: OffsetRange | null): HeldRange | null {
  return range === null ? null : { first: range.first.toString(), last: range.last.toString(), exact: range.exact };
}

function fromHeld(range: HeldRange | null): OffsetRange | null {
  return range === null ? null : { first: BigInt(range.first), last: BigInt(range.last), exact: range.exact };
}
