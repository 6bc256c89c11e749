/**
 * The one interface every readiness check implements (rules.ts lists them in `readinessRules`; readiness/verdict.ts
 * judges a flow with them). A readiness check is pure, like a rule (rule.ts): it reads one flow as it stands — the
 * cycle's snapshot, the flow's translation and content audit, the alerts — and says how one reason to trust a
 * failover stands. Unlike a rule it is not run per cycle by `runRules`: readiness is judged when a page or the API
 * asks, because it reads the alerts as they stand then, acknowledgements included.
 */
import type { FlowAuditView } from "@/lib/audit";
import type { Flow, Snapshot } from "@/lib/collector/types";
import type { Thresholds } from "@/lib/config/thresholds";
import type { FlowTranslation } from "@/lib/translation";
import type { AlertSubject, Evidence, FindingTypeName } from "./types";

/** How one check stands: `unknown` when it could not be made (unknown is not healthy). */
export type ReadinessStatus = "ok" | "degraded" | "not-ready" | "unknown";

export type ReadinessCheckId =
  | "connectors"
  | "topics"
  | "configs"
  | "lag"
  | "alerts"
  | "groups"
  | "heartbeats"
  | "content"
  // Not a rule's: the pages and the API add it when the data they serve is stale (lib/views/data-age.ts).
  | "freshness";

/**
 * An alert as the checks read it: the facts of lib/alerts' record they need, the lifecycle already applied by the
 * caller (lib/views/readiness.ts), since the alerts' layer is above the engine's.
 */
export interface ReadinessAlert extends AlertSubject {
  id: string;
  type: FindingTypeName;
  summary: string;
  evidence: Evidence;
  /** The alert fires now. */
  firing: boolean;
  /** Not acknowledged, and firing or a loss that stopped growing (lib/alerts/loss-alerts.ts isAwaitingAttention). */
  awaitingAttention: boolean;
}

/** Where an item's evidence is shown, within the judged flow; lib/views turns it into a link. */
export type ReadinessRef =
  | { kind: "flow" }
  | { kind: "coverage" }
  | { kind: "topic"; topic: string; partition?: number }
  | { kind: "group"; group: string }
  | { kind: "alert"; alert: ReadinessAlert }
  | { kind: "connect" };

/** One item behind a check's status (a topic, a connector, a group) and where its evidence is. */
export interface ReadinessItem {
  text: string;
  ref: ReadinessRef | null;
}

/** What a check says: its status, one line an operator understands at 3 a.m., the items behind it (a handful). */
export interface ReadinessOutcome {
  status: ReadinessStatus;
  message: string;
  items: ReadinessItem[];
}

/** What the readiness checks read: one flow of one snapshot, its translation, the alerts, its RPO. */
export interface ReadinessInput {
  snapshot: Snapshot;
  flow: Flow;
  /** The flow's translation this cycle; null when it could not be made (no checkpoint data). */
  translation: FlowTranslation | null;
  alerts: readonly ReadinessAlert[];
  thresholds: Thresholds;
  /** The flow's recovery point objective (config `flows."<id>".rpoSeconds`, default thresholds.lagSeconds). */
  rpoSeconds: number;
  now: number;
  /** The flow's content audit (lib/audit): null when none ran yet; absent when the caller has no audit. */
  audit?: FlowAuditView | null;
}

/** One readiness check (a reason to trust, or not, a failover of the flow now). */
export interface ReadinessRule {
  /** Unique: names the check in the verdict, the API and the pages. */
  id: ReadinessCheckId;
  /** What is checked, as shown; a function when it names the flow's settings (the lag check's RPO). */
  title: string | ((input: ReadinessInput) => string);
  /** Whether the check is made for this input (absent: always). */
  appliesTo?: (input: ReadinessInput) => boolean;
  check(input: ReadinessInput): ReadinessOutcome;
}
