import type { ConfirmedLoss } from "./lost-ranges";
import type { AuditOutcome, AuditSample } from "./types";

/** What the audit found for one flow topic (or a whole flow) since Gapwatch started. */
export interface AuditCounters {
  /** Source records compared (every outcome but foreign, which has no source record). */
  audited: number;
  matched: number;
  mismatched: number;
  missing: number;
  duplicates: number;
  /** Target records that are no copy of a source record ("not from this source"). */
  foreign: number;
  /** Of the matched, those found by content within a bracket of target offsets. */
  bracketed: number;
  /** Time range covered: the oldest and newest source record timestamps compared (epoch ms). */
  oldestRecordAt: number | null;
  newestRecordAt: number | null;
}

/** What one cycle's audit cost (measured around the fetches and comparisons). */
export interface AuditCost {
  windows: number;
  /** Fetch requests sent, both sides. */
  fetchRequests: number;
  /** Key, value and header bytes read, both sides. */
  bytes: number;
  /** Process CPU time spent while the audit ran (user + system). */
  cpuMs: number;
}

/** One flow's audit as the read model shows it. */
export interface FlowAuditView {
  flow: string;
  totals: AuditCounters;
  /** Per topic; `partitions`: distinct partitions with at least one source record compared. */
  topics: ({ topic: string; partitions: number } & AuditCounters)[];
  /** The newest non-matching samples (mismatched, missing, duplicate, foreign) with exact offsets, newest first. */
  problems: AuditSample[];
  /** Source records verified (matched or duplicate) over the last hour. */
  verifiedLastHour: number;
  lastCycle: { at: number; audited: number; cost: AuditCost } | null;
  /** DATA_LOSS ranges the audit confirmed absent from the target, newest first. */
  confirmedLosses: ConfirmedLoss[];
}

const problemLimit = 50;
const confirmedLossLimit = 20;
const hourMs = 3_600_000;

export function createCounters(): AuditCounters {
  return { audited: 0, matched: 0, mismatched: 0, missing: 0, duplicates: 0, foreign: 0, bracketed: 0, oldestRecordAt: null, newestRecordAt: null };
}

const outcomeField: Record<AuditOutcome, "matched" | "mismatched" | "missing" | "duplicates" | "foreign"> = {
  matched: "matched",
  mismatched: "mismatched",
  missing: "missing",
  duplicate: "duplicates",
  foreign: "foreign",
};

/** Adds one sample to counters (in place). */
export function countSample(counters: AuditCounters, s: AuditSample): void {
  counters[outcomeField[s.outcome]]++;
  if (s.outcome !== "foreign") counters.audited++;
  if (s.bracketed && (s.outcome === "matched" || s.outcome === "duplicate")) counters.bracketed++;
  if (s.sourceTimestamp !== null) {
    counters.oldestRecordAt = Math.min(counters.oldestRecordAt ?? s.sourceTimestamp, s.sourceTimestamp);
    counters.newestRecordAt = Math.max(counters.newestRecordAt ?? s.sourceTimestamp, s.sourceTimestamp);
  }
}

/** One flow's counters and coverage (exported for the stored state, lib/audit/stored-state.ts). */
export interface FlowTally {
  totals: AuditCounters;
  topics: Map<string, AuditCounters>;
  /** Partitions compared at least once, per topic. */
  partitions: Map<string, Set<number>>;
  problems: AuditSample[];
  verified: { at: number; count: number }[];
  lastCycle: FlowAuditView["lastCycle"];
  confirmedLosses: ConfirmedLoss[];
}

/** Accumulates each cycle's samples per flow and topic, in memory; callers pass `now`. */
export class AuditTally {
  private readonly flows = new Map<string, FlowTally>();

  /** Adds one cycle's samples of one flow. */
  record(flow: string, samples: readonly AuditSample[], now: number, cost: AuditCost): void {
    const tally = this.flowTally(flow);
    for (const s of samples) {
      countSample(tally.totals, s);
      let topic = tally.topics.get(s.topic);
      if (topic === undefined) tally.topics.set(s.topic, (topic = createCounters()));
      countSample(topic, s);
      if (s.outcome === "foreign") continue;
      let audited = tally.partitions.get(s.topic);
      if (audited === undefined) tally.partitions.set(s.topic, (audited = new Set()));
      audited.add(s.partition);
    }
    const problems = samples.filter((s) => s.outcome !== "matched");
    tally.problems = [...problems.reverse(), ...tally.problems].slice(0, problemLimit);
    const verified = samples.filter((s) => s.outcome === "matched" || s.outcome === "duplicate").length;
    tally.verified = [...tally.verified.filter((v) => v.at > now - hourMs), { at: now, count: verified }];
    tally.lastCycle = { at: now, audited: samples.filter((s) => s.outcome !== "foreign").length, cost };
  }

  /** Adds lost ranges confirmed missing (a range already confirmed is kept as first confirmed); true when any is new. */
  confirmLosses(flow: string, losses: readonly ConfirmedLoss[]): boolean {
    const tally = this.flowTally(flow);
    const keyOf = (l: ConfirmedLoss) => `${l.topic}|${l.partition}|${l.firstLostOffset}|${l.lastLostOffset}`;
    const known = new Set(tally.confirmedLosses.map(keyOf));
    const fresh = losses.filter((l) => !known.has(keyOf(l)));
    tally.confirmedLosses = [...fresh, ...tally.confirmedLosses].slice(0, confirmedLossLimit);
    return fresh.length > 0;
  }

  /** A copy of every flow's tally, to store (Gapwatch restarts keep the counters and coverage). */
  exportState(): Map<string, FlowTally> {
    return new Map([...this.flows].map(([flow, t]) => [flow, copyTally(t)]));
  }

  /** Replaces the tallies with stored ones (at start, before the first audit). */
  importState(flows: ReadonlyMap<string, FlowTally>): void {
    this.flows.clear();
    for (const [flow, t] of flows) this.flows.set(flow, copyTally(t));
  }

  /** Flows audited at least once. */
  flowIds(): string[] {
    return [...this.flows.keys()];
  }

  /** A flow's view, or null when it was never audited. */
  view(flow: string, now: number): FlowAuditView | null {
    const tally = this.flows.get(flow);
    if (tally === undefined) return null;
    return {
      flow,
      totals: { ...tally.totals },
      topics: [...tally.topics].map(([topic, c]) => ({ topic, partitions: tally.partitions.get(topic)?.size ?? 0, ...c })).sort((a, b) => a.topic.localeCompare(b.topic)),
      problems: [...tally.problems],
      verifiedLastHour: tally.verified.filter((v) => v.at > now - hourMs).reduce((n, v) => n + v.count, 0),
      lastCycle: tally.lastCycle,
      confirmedLosses: [...tally.confirmedLosses],
    };
  }

  private flowTally(flow: string): FlowTally {
    let tally = this.flows.get(flow);
    if (tally === undefined) {
      tally = { totals: createCounters(), topics: new Map(), partitions: new Map(), problems: [], verified: [], lastCycle: null, confirmedLosses: [] };
      this.flows.set(flow, tally);
    }
    return tally;
  }
}

function copyTally(t: FlowTally): FlowTally {
  return {
    totals: { ...t.totals },
    topics: new Map([...t.topics].map(([topic, c]) => [topic, { ...c }])),
    partitions: new Map([...t.partitions].map(([topic, set]) => [topic, new Set(set)])),
    problems: [...t.problems],
    verified: [...t.verified],
    lastCycle: t.lastCycle,
    confirmedLosses: [...t.confirmedLosses],
  };
}
