// What each soak event must (or may) raise, and the matching of every raised alert against it.
import type { AlertRecord } from "@/lib/alerts/types";
import type { FindingTypeName, SeverityName } from "@/lib/detect/types";
import type { StoredEvent } from "@/lib/store";

/** Offsets as decimal strings, compared as bigint: the value must lie in [min, max]. */
export interface EvidenceBound {
  min?: string;
  max?: string;
}

/**
 * One alert an event must raise (`required`) or may raise as a true consequence (e.g. lag while MM2
 * is stopped). Topic and partition narrow it when set; the window is [from, to] in epoch ms.
 */
export interface Expectation {
  id: string;
  eventId: string;
  type: FindingTypeName;
  severity: SeverityName | null;
  required: boolean;
  flow: string;
  topic: string | null;
  partition: number | null;
  group: string | null;
  from: number;
  to: number;
  /** Evidence fields that must be equal (offsets and counts as decimal strings). */
  exact: Record<string, string>;
  /** Evidence fields holding a comma-separated list that must include the value (e.g. stalled partitions). */
  contains: Record<string, string>;
  /** Evidence fields (offsets) that must lie within bounds. */
  bounds: Record<string, EvidenceBound>;
  reason: string;
  /** Alert ids that matched it. */
  matched: string[];
}

/** A standing flag that is true in the sandbox whatever the soak does; `topics` narrows it when set. */
export interface WhitelistEntry {
  type: FindingTypeName;
  topics?: string[];
  reason: string;
}

/** An alert going off: a fired or refired transition from the timeline, or a firing alert with no transition kept. */
export interface Occurrence extends Pick<AlertRecord, "type" | "severity" | "flow" | "cluster" | "topic" | "partition" | "group" | "summary" | "evidence"> {
  alertId: string;
  at: number;
  transition: "fired" | "refired";
  /** The evidence when it went off (the timeline keeps it); `evidence` is the alert's latest. */
  evidenceThen: Record<string, unknown> | null;
}

export type Verdict = "expected" | "allowed" | "whitelisted" | "false";

export interface JudgedOccurrence extends Occurrence {
  verdict: Verdict;
  expectationId: string | null;
  /** Why an occurrence that looked like an expectation did not match it (evidence or severity). */
  note: string | null;
}

export interface MatchResult {
  occurrences: JudgedOccurrence[];
  missed: Expectation[];
}

/**
 * Lists every time an alert went off: each `alert-fired` / `alert-refired` entry of the event
 * timeline, with the alert's record (its evidence is the latest, e.g. a merged loss range) placed
 * where the entry says it went off (a flow-level alert can name other partitions each time). A
 * firing alert without a timeline entry (none is expected) counts once at its firstSeen.
 */
export function listOccurrences(alerts: readonly AlertRecord[], timeline: readonly StoredEvent[]): Occurrence[] {
  const byId = new Map(alerts.map((a) => [a.id, a]));
  const seen = new Set<string>();
  const out: Occurrence[] = [];
  for (const entry of [...timeline].sort((a, b) => a.at - b.at)) {
    if (entry.kind !== "alert-fired" && entry.kind !== "alert-refired") continue;
    const then = readTransitionData(entry.data);
    const alert = then === null ? undefined : byId.get(then.id);
    if (alert === undefined || then === null) continue;
    seen.add(alert.id);
    const occurrence = toOccurrence(alert, entry.at, entry.kind === "alert-fired" ? "fired" : "refired");
    out.push(then.evidence === null ? occurrence : { ...occurrence, topic: then.topic, partition: then.partition, evidenceThen: then.evidence });
  }
  for (const alert of alerts) if (!seen.has(alert.id)) out.push(toOccurrence(alert, alert.firstSeen, "fired"));
  return out;
}

interface TransitionData {
  id: string;
  topic: string | null;
  partition: number | null;
  evidence: Record<string, unknown> | null;
}

/**
 * Timeline entries of alert transitions carry `{ id }`, and since the 60-minute soak of seed 2028
 * also `topic`, `partition` and `evidence` when an alert went off (alert-service.ts describeTransition).
 */
function readTransitionData(data: unknown): TransitionData | null {
  if (data === null || typeof data !== "object" || !("id" in data) || typeof data.id !== "string") return null;
  const fields = data as Record<string, unknown>;
  const evidence = fields.evidence;
  return {
    id: data.id,
    topic: typeof fields.topic === "string" ? fields.topic : null,
    partition: typeof fields.partition === "number" ? fields.partition : null,
    evidence: evidence !== null && typeof evidence === "object" ? (evidence as Record<string, unknown>) : null,
  };
}

function toOccurrence(alert: AlertRecord, at: number, transition: Occurrence["transition"]): Occurrence {
  const { id, type, severity, flow, cluster, topic, partition, group, summary, evidence } = alert;
  return { alertId: id, at, transition, type, severity, flow, cluster, topic, partition, group, summary, evidence, evidenceThen: null };
}

/**
 * Judges every occurrence: matched to an expectation (required ones first) → expected/allowed; a
 * whitelisted risk flag → whitelisted; anything else → false. A required expectation also counts
 * as met by an alert of its scope that was already firing when its window opened (it cannot fire
 * twice). Required expectations met by nothing → missed.
 */
export function matchAlerts(
  occurrences: readonly Occurrence[],
  expectations: Expectation[],
  whitelist: readonly WhitelistEntry[],
  firingAt: (alertId: string, at: number) => boolean,
): MatchResult {
  const judged = occurrences.map((o): JudgedOccurrence => {
    const inScope = expectations.filter((e) => isInScope(e, o));
    const fits = inScope.filter((e) => explainMismatch(e, o) === null);
    const pick = fits.find((e) => e.required && e.matched.length === 0) ?? fits.find((e) => e.required) ?? fits[0];
    if (pick !== undefined) {
      pick.matched.push(o.alertId);
      return { ...o, verdict: pick.required ? "expected" : "allowed", expectationId: pick.id, note: null };
    }
    if (whitelist.some((w) => isWhitelisted(w, o))) {
      return { ...o, verdict: "whitelisted", expectationId: null, note: null };
    }
    const near = inScope[0];
    return { ...o, verdict: "false", expectationId: null, note: near === undefined ? null : `${near.id}: ${explainMismatch(near, o)}` };
  });
  for (const e of expectations.filter((x) => x.required && x.matched.length === 0)) {
    const carried = occurrences.find((o) => o.at < e.from && isInScope({ ...e, from: 0 }, o) && explainMismatch(e, o) === null && firingAt(o.alertId, e.from));
    if (carried !== undefined) e.matched.push(carried.alertId);
  }
  return { occurrences: judged, missed: expectations.filter((e) => e.required && e.matched.length === 0) };
}

function isWhitelisted(w: WhitelistEntry, o: Occurrence): boolean {
  if (w.type !== o.type) return false;
  return w.topics === undefined || (o.topic !== null && w.topics.includes(o.topic));
}

function isInScope(e: Expectation, o: Occurrence): boolean {
  if (e.type !== o.type || e.flow !== o.flow) return false;
  if (e.topic !== null && e.topic !== o.topic) return false;
  if (e.partition !== null && e.partition !== o.partition) return false;
  if (e.group !== null && e.group !== o.group) return false;
  return o.at >= e.from && o.at <= e.to;
}

function explainMismatch(e: Expectation, o: Occurrence): string | null {
  if (e.severity !== null && e.severity !== o.severity) return `severity ${o.severity}, expected ${e.severity}`;
  for (const [key, want] of Object.entries(e.exact)) {
    const got = o.evidence[key];
    if (String(got) !== want) return `evidence ${key}=${String(got)}, expected ${want}`;
  }
  // Lists of where it went off (TASK_STALLED's partitions) are judged as they were then; ranges
  // and counts by the latest evidence (a loss range can be merged after firing).
  for (const [key, item] of Object.entries(e.contains)) {
    const got = (o.evidenceThen ?? o.evidence)[key];
    if (!String(got).split(",").includes(item)) return `evidence ${key}=${String(got)} does not include ${item}`;
  }
  for (const [key, bound] of Object.entries(e.bounds)) {
    const got = o.evidence[key];
    if (typeof got !== "string" || !/^-?\d+$/.test(got)) return `evidence ${key}=${String(got)} is not an offset`;
    const value = BigInt(got);
    if ((bound.min !== undefined && value < BigInt(bound.min)) || (bound.max !== undefined && value > BigInt(bound.max))) {
      return `evidence ${key}=${got} outside [${bound.min ?? "-∞"}, ${bound.max ?? "∞"}]`;
    }
  }
  return null;
}

/**
 * Whether the timeline shows the alert firing at `at`: its last fired/refired/resolved entry before
 * `at` is a fired or refired one.
 */
export function createFiringTest(timeline: readonly StoredEvent[]): (alertId: string, at: number) => boolean {
  const entries = [...timeline].filter((e) => e.kind.startsWith("alert-")).sort((a, b) => a.at - b.at);
  return (alertId, at) => {
    let firing = false;
    for (const e of entries) {
      if (e.at > at) break;
      if (readTransitionData(e.data)?.id !== alertId) continue;
      if (e.kind === "alert-fired" || e.kind === "alert-refired") firing = true;
      if (e.kind === "alert-resolved") firing = false;
    }
    return firing;
  };
}
