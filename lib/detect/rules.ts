/**
 * THE REGISTRY: every rule Gapwatch has, in the order the engine runs them (engine.ts). Their findings keep this
 * order: event rules first (held events are emitted before level findings), then level rules. A new rule is one
 * line here (docs/development.md "Add an alert").
 */
import { detectAbortedRecordsCopied } from "./aborted-copied";
import { auditMismatchRule } from "./audit-rule";
import { detectCommitsWithoutLeaderEpoch } from "./commit-without-leader-epoch";
import { detectConnectorsMissing } from "./connector-missing";
import { detectCopierChanges } from "./copier-changed";
import { detectDataLoss } from "./data-loss";
import { detectFlowConfigWarnings, detectTopicsLeftFlow } from "./flow-membership";
import { detectNoCleanSuccessor } from "./no-clean-successor";
import { detectOffsetsOutOfRange } from "./offset-out-of-range";
import { detectPartitionHealth } from "./partition-health";
import { detectPositionMoves } from "./position-moved";
import { detectPostureRisks } from "./posture-risks";
import type { ReadinessRule } from "./readiness-rule";
import { alertsCheck } from "./readiness/alerts";
import { connectorsCheck } from "./readiness/connectors";
import { contentCheck } from "./readiness/content";
import { groupsCheck } from "./readiness/groups";
import { heartbeatsCheck } from "./readiness/heartbeats";
import { lagCheck } from "./readiness/lag";
import { topicConfigsCheck } from "./readiness/topic-configs";
import { topicsCheck } from "./readiness/topics";
import { detectRedelivery } from "./redelivery";
import { detectReplicationLag } from "./replication-lag";
import { detectRetentionRisk } from "./retention-risk";
import type { Rule, StatelessRule } from "./rule";
import { detectSkippedByReset } from "./skipped-by-reset";
import type { DetectorContext } from "./snapshot-views";
import { detectTargetGroupRewinds } from "./target-group-rewound";
import { detectTargetTruncation } from "./target-truncated";
import { detectTaskFailures } from "./task-failed";
import { detectTasksNotRunning } from "./task-not-running";
import { detectTaskStalls } from "./task-stalled";
import { detectCoverageFindings } from "./topic-coverage";
import { detectTopicReset } from "./topic-reset";
import { translationRule } from "./translation-rule";
import { FindingType, type FindingTypeName } from "./types";
import { detectUncleanTruncation } from "./unclean-truncation";

type EventDetector = (ctx: DetectorContext) => ReturnType<typeof detectDataLoss>;
type LevelDetector = (ctx: DetectorContext) => ReturnType<typeof detectTaskFailures>;

/** A memory-less event rule over the snapshots (its events held eventHoldMs; events.ts). */
function defineEventRule(id: string, types: readonly FindingTypeName[], detect: EventDetector): StatelessRule {
  return { id, types, unknown: "snapshot", run: (cycle) => ({ events: detect(cycle.detector) }) };
}

/** A memory-less level rule over the snapshots, its findings carried while their data is unknown. */
function defineLevelRule(id: string, types: readonly FindingTypeName[], detect: LevelDetector): StatelessRule {
  return { id, types, unknown: "snapshot", run: (cycle) => ({ findings: detect(cycle.detector) }) };
}

/** The rules over the collector's snapshots (lib/detect's detectors), in their order. */
export const snapshotRules: readonly Rule[] = [
  defineEventRule("data-loss", [FindingType.DATA_LOSS], detectDataLoss),
  {
    id: "topic-reset",
    types: [FindingType.TOPIC_RESET],
    unknown: "snapshot",
    // Reads the marks MM2_POSITION_MOVED's rule kept last cycle (the topic ID MM2's positions belong to).
    run: (cycle) => ({ events: detectTopicReset(cycle.detector, cycle.memory.committed) }),
  },
  defineEventRule("redelivery", [FindingType.MM2_REDELIVERY], detectRedelivery),
  defineEventRule("skipped-by-reset", [FindingType.MM2_SKIPPED_BY_RESET], detectSkippedByReset),
  defineEventRule("copier-changed", [FindingType.TOPIC_CHANGED_CONNECTOR], detectCopierChanges),
  {
    id: "position-moved",
    types: [FindingType.MM2_POSITION_MOVED],
    unknown: "snapshot",
    section: "committed",
    run: (cycle, marks) => {
      const moves = detectPositionMoves(cycle.detector, marks);
      return { events: moves.candidates, memory: moves.marks };
    },
  },
  defineEventRule("target-truncated", [FindingType.TARGET_TRUNCATED], detectTargetTruncation),
  {
    id: "unclean-truncation",
    types: [FindingType.UNCLEAN_TRUNCATION],
    unknown: "snapshot",
    // Judged against the events held so far (a truncation already reported is not reported again).
    run: (cycle) => ({ events: detectUncleanTruncation(cycle.detector, cycle.memory.events) }),
  },
  defineEventRule("topic-left-flow", [FindingType.TOPIC_LEFT_FLOW], detectTopicsLeftFlow),
  defineEventRule("target-group-rewound", [FindingType.TARGET_GROUP_REWOUND], detectTargetGroupRewinds),
  defineLevelRule("task-failed", [FindingType.TASK_FAILED], detectTaskFailures),
  defineLevelRule("task-not-running", [FindingType.TASK_NOT_RUNNING], detectTasksNotRunning),
  defineLevelRule("connector-missing", [FindingType.MM2_CONNECTOR_MISSING], detectConnectorsMissing),
  defineLevelRule("flow-config-warning", [FindingType.FLOW_CONFIG_WARNING], detectFlowConfigWarnings),
  {
    id: "task-stalled",
    types: [FindingType.TASK_STALLED],
    unknown: "snapshot",
    section: "positions",
    run: (cycle, marks) => {
      const stalls = detectTaskStalls(cycle.detector, marks);
      return { findings: stalls.findings, memory: stalls.marks };
    },
  },
  defineLevelRule("replication-lag", [FindingType.REPLICATION_LAG], detectReplicationLag),
  defineLevelRule("retention-risk", [FindingType.RETENTION_RISK], detectRetentionRisk),
  defineLevelRule(
    "partition-health",
    [FindingType.OFFLINE, FindingType.UNDER_REPLICATED, FindingType.UNCLEAN_ELECTION_ENABLED],
    detectPartitionHealth,
  ),
  defineLevelRule("no-clean-successor", [FindingType.NO_CLEAN_SUCCESSOR], detectNoCleanSuccessor),
  defineLevelRule(
    "commit-without-leader-epoch",
    [FindingType.COMMIT_WITHOUT_LEADER_EPOCH],
    detectCommitsWithoutLeaderEpoch,
  ),
  defineLevelRule("offset-out-of-range", [FindingType.OFFSET_OUT_OF_RANGE], detectOffsetsOutOfRange),
  defineLevelRule("aborted-records-copied", [FindingType.ABORTED_RECORDS_COPIED], detectAbortedRecordsCopied),
  defineLevelRule(
    "topic-coverage",
    [FindingType.TOPIC_FILTER_MATCHES_NOTHING, FindingType.TOPIC_MISSING_ON_TARGET],
    detectCoverageFindings,
  ),
];

/** Standing risks of the clusters' settings (never alerts: lib/alerts keeps them as risks). */
const postureRule: StatelessRule = {
  id: "posture-risks",
  types: [
    FindingType.REPLICATION_FACTOR_ONE,
    FindingType.MIN_INSYNC_REPLICAS_ONE,
    FindingType.TARGET_RETENTION_SHORTER,
    FindingType.TOPIC_DRIFT,
  ],
  // A stale cluster's settings are last cycle's, carried by the collector: the risk stands as it was.
  unknown: "none",
  run: (cycle) => ({ findings: detectPostureRisks(cycle.current, cycle.now) }),
};

/** Every rule, in the order they run and their findings are listed. */
export const rules: readonly Rule[] = [...snapshotRules, translationRule, postureRule, auditMismatchRule];

/**
 * Every readiness check, in the order they are listed among checks of one status (readiness/verdict.ts). Not run per
 * cycle: readiness is judged when a page or the API asks (readiness-rule.ts).
 */
export const readinessRules: readonly ReadinessRule[] = [
  connectorsCheck,
  topicsCheck,
  topicConfigsCheck,
  lagCheck,
  alertsCheck,
  groupsCheck,
  heartbeatsCheck,
  contentCheck,
];
