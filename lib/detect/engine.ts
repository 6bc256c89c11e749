import { type CollectorHistory, flowPartitionKey, type OffsetSyncPoint, type Snapshot } from "@/lib/collector/types";
import { readSyncHistories } from "@/lib/collector/sync-history";
import type { Thresholds } from "@/lib/config/thresholds";
import { createReplicationPolicy } from "@/lib/mm2";
import type { FlowTranslation } from "@/lib/translation";
import { CheckpointWatchState } from "./checkpoint-watch";
import { type EventCandidate, listEventFindings, mergeEvents, pruneEvents } from "./events";
import type { Rule, RuleCycle, RuleMemory, RuleOutput, RuleSections } from "./rule";
import { rules as registeredRules, snapshotRules } from "./rules";
import { createFreshKeyTest, keepOnlySnapshotIndex, listJudgedFlows, type DetectorContext } from "./snapshot-views";
import { stepSyncs } from "./sync-steps";
import { indexTruncations } from "./truncation-index";
import type { DetectorInput, DetectorOutput, Finding, HeldEvent } from "./types";
import { carryUnknownFindings, createUnknownFindingTest } from "./unknown-data";

/** One cycle for the engine: the model, the previous one, the clock, thresholds, and every rule's memory. */
export interface RuleInput {
  previous: Snapshot | null;
  current: Snapshot;
  history: CollectorHistory;
  now: number;
  thresholds: Thresholds;
  memory: RuleMemory;
  /** Every flow's translation this cycle (lib/translation); a flow whose translation failed is absent. */
  translations?: ReadonlyMap<string, FlowTranslation>;
  /** Flows whose translation failed this cycle: their translation findings stay as they were (unknown). */
  untranslatedFlows?: ReadonlySet<string>;
  /** The content audit's held AUDIT_MISMATCH findings. */
  auditFindings?: readonly Finding[];
}

/** What the engine gives back: the cycle's findings in registry order, and every rule's next memory. */
export interface RuleEngineOutput {
  findings: Finding[];
  memory: RuleMemory;
}

/**
 * Runs every rule over one cycle (rules.ts; `rules` another list, for a test). Pure: the caller passes the clock
 * (`now`) and the memory returned by the previous call, and persists the memory it gets back.
 *
 * - Event findings (a rule's `events`) are merged into held events and re-emitted until `eventHoldMs` after they
 *   were last seen (events.ts). Held events about a partition that is unknown this cycle are kept past
 *   `eventHoldMs` until the partition is known again (a loss must not resolve while its partition cannot be read).
 * - Level findings (a rule's `findings`) are emitted while their condition holds. When the data a finding was based
 *   on is stale or unknown this cycle, last cycle's finding is emitted again (unknown-data.ts, the rule's
 *   `unknown` test): unknown is not healthy, and an alert must not resolve because its data could not be read.
 * - Offset-sync steps are judged once, in the first cycle where they are new and the flow's data is fresh in this
 *   and the previous cycle (sync-steps.ts): the engine derives them once for every rule (`cycle.detector`).
 * Findings come out as the held events first, then each level rule's in registry order, its carried ones after it.
 */
export function runRules(input: RuleInput, rules: readonly Rule[] = registeredRules): RuleEngineOutput {
  const { previous, current, history, memory, now, thresholds } = input;
  const before = createFreshKeyTest(previous);
  const fresh = createFreshKeyTest(current);
  const syncs = stepSyncs(memory.syncMarkers, history, (key) => fresh(key) && before(key), fresh, now);
  const newSyncs = dropSharedHeartbeatSyncs(current, syncs.newSyncs);
  const detector: DetectorContext = {
    previous,
    current,
    now,
    thresholds,
    newSyncs,
    syncHistory: readSyncHistories(history.offsetSyncs),
    judged: listJudgedFlows(current, previous, newSyncs),
    truncations: indexTruncations(current, memory.events),
  };
  const cycle: RuleCycle = {
    current,
    previous,
    history,
    now,
    thresholds,
    detector,
    translations: input.translations ?? new Map(),
    untranslatedFlows: input.untranslatedFlows ?? new Set(),
    auditFindings: input.auditFindings ?? [],
    memory,
  };
  const { positions, committed, checkpointWatch } = memory;
  const sections: RuleSections = { positions, committed, checkpointWatch };
  const isUnknown = createUnknownFindingTest(current);
  checkOneRulePerType(rules);
  const lastByType = groupByType(memory.lastFindings);
  const candidates: EventCandidate[] = [];
  const level: Finding[] = [];
  const lastFindings: Finding[] = [];
  for (const rule of rules) {
    const output = runRule(rule, cycle, sections);
    if (output.events !== undefined) candidates.push(...output.events);
    const produced = output.findings ?? [];
    if (rule.unknown === "none") {
      level.push(...produced);
      continue;
    }
    const last = rule.types.flatMap((type) => lastByType.get(type) ?? []);
    const test = last.length === 0 ? null : rule.unknown === "snapshot" ? isUnknown : rule.unknown(cycle);
    const carried = test === null ? [] : carryUnknownFindings(last, produced, test);
    level.push(...produced, ...carried);
    lastFindings.push(...produced, ...carried);
  }
  const unknownEvents: HeldEvent[] = [];
  const knownEvents: HeldEvent[] = [];
  for (const e of memory.events) (isUnknown(e.finding) ? unknownEvents : knownEvents).push(e);
  const kept = [...pruneEvents(knownEvents, now, thresholds.eventHoldMs), ...unknownEvents];
  const events = mergeEvents(kept, candidates, now);
  // Every rule that reads `previous` ran: its index need not outlive it.
  keepOnlySnapshotIndex(current);
  return {
    findings: [...listEventFindings(events), ...level],
    memory: { version: 1, events, syncMarkers: syncs.markers, ...sections, lastFindings },
  };
}

/** Runs one rule with its own memory section, and keeps the section it returns. */
function runRule(rule: Rule, cycle: RuleCycle, sections: RuleSections): RuleOutput {
  switch (rule.section) {
    case undefined:
      return rule.run(cycle);
    case "positions": {
      const output = rule.run(cycle, sections.positions);
      sections.positions = output.memory;
      return output;
    }
    case "committed": {
      const output = rule.run(cycle, sections.committed);
      sections.committed = output.memory;
      return output;
    }
    case "checkpointWatch": {
      const output = rule.run(cycle, sections.checkpointWatch);
      sections.checkpointWatch = output.memory;
      return output;
    }
  }
}

/** Lists checked already: a list is checked once. */
const checkedLists = new WeakSet<readonly Rule[]>();

/**
 * Every finding type has one rule: last cycle's findings are handed back to the rule of their type (to be carried),
 * so two rules of one type would carry each other's findings twice.
 */
function checkOneRulePerType(rules: readonly Rule[]): void {
  if (checkedLists.has(rules)) return;
  const owners = new Map<string, string>();
  for (const rule of rules) {
    for (const type of rule.types) {
      const other = owners.get(type);
      if (other !== undefined) {
        throw new Error(`rules ${other} and ${rule.id} both emit ${type}: give each finding type one rule (lib/detect/rules.ts)`);
      }
      owners.set(type, rule.id);
    }
  }
  checkedLists.add(rules);
}

function groupByType(findings: readonly Finding[]): Map<string, Finding[]> {
  const byType = new Map<string, Finding[]>();
  for (const f of findings) {
    const list = byType.get(f.type);
    if (list === undefined) byType.set(f.type, [f]);
    else list.push(f);
  }
  return byType;
}

/**
 * The snapshot rules alone (lib/detect's detectors, without translation, posture and audit rules) with a detector
 * memory: what their unit tests and the compute bench run.
 */
export function runDetectors(input: DetectorInput): DetectorOutput {
  const { memory, ...cycle } = input;
  const withWatch = { ...memory, checkpointWatch: new CheckpointWatchState() };
  const output = runRules({ ...cycle, memory: withWatch }, snapshotRules);
  const { version, events, syncMarkers, positions, committed, lastFindings } = output.memory;
  return { findings: output.findings, memory: { version, events, syncMarkers, positions, committed, lastFindings } };
}

type NewSyncs = ReadonlyMap<string, readonly OffsetSyncPoint[]>;

/**
 * The new offset syncs without those of heartbeats topics in flows split over several MirrorSourceConnectors: each
 * connector copies heartbeats whatever its topic filter (MirrorSourceConnector.shouldReplicateTopic takes heartbeats
 * topics) and writes their syncs into the one offset-syncs topic, so the steps interleave two writers — read as one
 * they look like a truncated target, re-copies and skipped offsets (tests/integration/production/split-flow.test.ts).
 * Heartbeats carry MM2's liveness, no data: their steps are not judged. Nor are those of topics two connectors' filters
 * both take (FLOW_CONFIG_WARNING topic-overlap says so and names what it hides).
 */
function dropSharedHeartbeatSyncs(snapshot: Snapshot, newSyncs: NewSyncs): NewSyncs {
  const split = snapshot.flows.filter((flow) => flow.connectors.sources.length > 1);
  if (split.length === 0 || newSyncs.size === 0) return newSyncs;
  const kept = new Map(newSyncs);
  for (const flow of split) {
    const policy = createReplicationPolicy(flow.replicationPolicy.kind, flow.replicationPolicy.separator, flow.source);
    const overlapped = new Set(flow.warnings.flatMap((w) => (w.kind === "topic-overlap" ? (w.topics ?? []) : [])));
    // Partitions come grouped by topic: the policy is asked once per topic.
    let topic: string | null = null;
    let heartbeats = false;
    for (const p of flow.partitions) {
      if (p.topic !== topic) [topic, heartbeats] = [p.topic, policy.isHeartbeatsTopic(p.topic) || overlapped.has(p.topic)];
      if (heartbeats) kept.delete(flowPartitionKey(flow.id, p.topic, p.partition));
    }
  }
  return kept;
}
