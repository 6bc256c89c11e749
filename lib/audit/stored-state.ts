import type { Finding } from "@/lib/detect/types";
import type { ConfirmedLoss } from "./lost-ranges";
import type { AuditCounters, FlowTally } from "./tally";
import type { AuditSample } from "./types";

/** What the auditor keeps across restarts: every flow's counters and coverage, and the held AUDIT_MISMATCH findings. */
export interface AuditState {
  tallies: Map<string, FlowTally>;
  held: Finding[];
}

/** The store kv key of the audit state. */
export const auditStateKey = "audit.state";
const version = 1;

type Stored<T> = Omit<T, "sourceOffset" | "targetOffsets" | "firstLostOffset" | "lastLostOffset" | "targetOffset">;
type StoredSample = Stored<AuditSample> & { sourceOffset: string | null; targetOffsets: string[] };
type StoredLoss = Stored<ConfirmedLoss> & { firstLostOffset: string; lastLostOffset: string; targetOffset: string };

interface StoredTally {
  flow: string;
  totals: AuditCounters;
  topics: [string, AuditCounters][];
  partitions: [string, number[]][];
  problems: StoredSample[];
  verified: FlowTally["verified"];
  lastCycle: FlowTally["lastCycle"];
  confirmedLosses: StoredLoss[];
}

/** JSON of the state; offsets as decimal strings. */
export function encodeAuditState(state: AuditState): string {
  const flows: StoredTally[] = [...state.tallies].map(([flow, t]) => ({
    flow,
    totals: t.totals,
    topics: [...t.topics],
    partitions: [...t.partitions].map(([topic, set]) => [topic, [...set].sort((a, b) => a - b)]),
    problems: t.problems.map((p) => ({ ...p, sourceOffset: p.sourceOffset?.toString() ?? null, targetOffsets: p.targetOffsets.map(String) })),
    verified: t.verified,
    lastCycle: t.lastCycle,
    confirmedLosses: t.confirmedLosses.map((l) => ({ ...l, firstLostOffset: l.firstLostOffset.toString(), lastLostOffset: l.lastLostOffset.toString(), targetOffset: l.targetOffset.toString() })),
  }));
  return JSON.stringify({ version, flows, held: state.held });
}

/** The state stored by encodeAuditState; throws on anything else (the caller starts afresh). */
export function decodeAuditState(raw: string): AuditState {
  const parsed = JSON.parse(raw) as { version?: unknown; flows?: StoredTally[]; held?: Finding[] };
  if (parsed.version !== version || !Array.isArray(parsed.flows) || !Array.isArray(parsed.held)) throw new Error(`not an audit state of version ${version}`);
  const tallies = new Map<string, FlowTally>();
  for (const f of parsed.flows) {
    tallies.set(f.flow, {
      totals: f.totals,
      topics: new Map(f.topics),
      partitions: new Map(f.partitions.map(([topic, list]) => [topic, new Set(list)])),
      problems: f.problems.map((p) => ({ ...p, sourceOffset: p.sourceOffset === null ? null : BigInt(p.sourceOffset), targetOffsets: p.targetOffsets.map(BigInt) })),
      verified: f.verified,
      lastCycle: f.lastCycle,
      confirmedLosses: f.confirmedLosses.map((l) => ({ ...l, firstLostOffset: BigInt(l.firstLostOffset), lastLostOffset: BigInt(l.lastLostOffset), targetOffset: BigInt(l.targetOffset) })),
    });
  }
  return { tallies, held: parsed.held };
}
