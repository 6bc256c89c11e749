/**
 * The one interface every rule implements (rules.ts lists them all; engine.ts runs them). A rule is pure: it reads
 * the cycle (`RuleCycle`: this cycle's model, the previous one, the clock, thresholds and what the engine derives
 * once for every rule) and its own memory section, and returns findings and its next memory section.
 * Readiness checks are the engine's too, with an interface of their own beside this one (readiness-rule.ts, listed in
 * rules.ts `readinessRules`): they are not run per cycle by `runRules` but when a page or the API asks, because they
 * read the alerts as they stand then, acknowledgements included.
 */
import type { Thresholds } from "@/lib/config/thresholds";
import type { CollectorHistory, Snapshot } from "@/lib/collector/types";
import type { FlowTranslation } from "@/lib/translation";
import type { CheckpointWatchState } from "./checkpoint-watch";
import type { EventCandidate } from "./events";
import type { DetectorContext } from "./snapshot-views";
import type { DetectorMemory, Finding, FindingTypeName } from "./types";

/**
 * Every rule's memory, one section per rule that keeps one, plus the engine's own (held events, examined offset
 * syncs, last cycle's level findings). JSON-safe but for the checkpoint watch, which is updated in place.
 */
export interface RuleMemory extends DetectorMemory {
  /** The translation rule's checkpoint watch (which checkpoints MM2 owes since when). */
  checkpointWatch: CheckpointWatchState;
}

/** The memory sections a rule can own (the others are the engine's). */
export interface RuleSections {
  positions: RuleMemory["positions"];
  committed: RuleMemory["committed"];
  checkpointWatch: RuleMemory["checkpointWatch"];
}
export type RuleSectionName = keyof RuleSections;

/** One cycle as every rule sees it: the model, the previous cycle's, and what the engine derived once. */
export interface RuleCycle {
  current: Snapshot;
  previous: Snapshot | null;
  history: CollectorHistory;
  now: number;
  thresholds: Thresholds;
  /** The snapshot rules' shared derivations: fresh partitions, new offset syncs, truncations (snapshot-views.ts). */
  detector: DetectorContext;
  /** Every flow's translation this cycle; a flow whose translation failed is absent (and in `untranslatedFlows`). */
  translations: ReadonlyMap<string, FlowTranslation>;
  untranslatedFlows: ReadonlySet<string>;
  /** The content audit's held AUDIT_MISMATCH findings (its last audit; empty without an audit). */
  auditFindings: readonly Finding[];
  /** The whole memory the previous cycle left, read-only (a rule may read another rule's section). */
  memory: Readonly<RuleMemory>;
}

/**
 * Which of last cycle's level findings are about data this cycle could not read: those are emitted again (unknown
 * is not healthy, an alert must not resolve because its data is missing). `snapshot`: the engine's test (a stale
 * cluster, an unreachable Connect, an unread partition or group; unknown-data.ts); a function: the rule's own test;
 * `none`: never carried (the rule reads nothing that can be unknown, or keeps its findings itself).
 */
export type UnknownTest = "snapshot" | "none" | ((cycle: RuleCycle) => (finding: Finding) => boolean);

/**
 * What a rule found this cycle, in one or both forms:
 * - `events`: something happened (a loss, a reset): each candidate is merged into the held events and emitted until
 *   `eventHoldMs` after it was last seen (events.ts); held events about unknown data are kept until it is known;
 * - `findings`: something is so now (a task failed, lag is high): emitted while the condition holds, and carried
 *   while its data is unknown (`unknown`).
 */
export interface RuleOutput {
  events?: EventCandidate[];
  findings?: Finding[];
}

interface RuleBase {
  /** Unique, kebab-case: names the rule in the registry and the docs. */
  id: string;
  /** Every finding type the rule emits (each type has exactly one rule; tests/unit/detect/rule-registry.test.ts). */
  types: readonly FindingTypeName[];
  /** Which of last cycle's `findings` to carry while their data is unknown. */
  unknown: UnknownTest;
}

/** A rule without memory. */
export interface StatelessRule extends RuleBase {
  section?: undefined;
  run(cycle: RuleCycle): RuleOutput;
}

/** A rule with its own memory section: it gets last cycle's and returns the next. */
export interface StatefulRule<K extends RuleSectionName> extends RuleBase {
  section: K;
  run(cycle: RuleCycle, memory: RuleSections[K]): RuleOutput & { memory: RuleSections[K] };
}

export type Rule = StatelessRule | { [K in RuleSectionName]: StatefulRule<K> }[RuleSectionName];
