import { findConnectCluster, listConnectClusters } from "@/lib/collector/connector-clusters";
import { isAwaitingAttention } from "@/lib/alerts/loss-alerts";
import type { AlertRecord } from "@/lib/alerts/types";
import type { FlowAuditView } from "@/lib/audit";
import type { ClusterSnapshot, Flow, FlowPartition, Snapshot, TopicConfigs, TopicState } from "@/lib/collector/types";
import { type Connector, ConnectorState } from "@/lib/connect/types";
import type { Thresholds } from "@/lib/config/thresholds";
import { FindingType, type FindingTypeName } from "@/lib/detect/types";
import { formatAge, formatCount } from "@/lib/format";
import type { FlowTranslation } from "@/lib/translation";
import { linkAlertEvidence } from "./alert-links";
import { flowPath } from "./flow-page";

export type ReadinessStatus = "ok" | "degraded" | "not-ready" | "unknown";

/** One readiness reason: what was checked, how it stands, and where its evidence is. */
export interface ReadinessCheck {
  id: "connectors" | "topics" | "configs" | "lag" | "alerts" | "groups" | "heartbeats" | "content";
  title: string;
  status: ReadinessStatus;
  /** One line an operator understands at 3 a.m. */
  message: string;
  /** The items behind the status (a topic, a connector, a group), at most a handful. */
  items: { text: string; href: string | null }[];
}

/** What the readiness checks read: one flow of one snapshot, its translation, the alerts, its RPO. */
export interface ReadinessInput {
  snapshot: Snapshot;
  flow: Flow;
  /** The flow's translation this cycle; null when it could not be made (no checkpoint data). */
  translation: FlowTranslation | null;
  alerts: readonly AlertRecord[];
  thresholds: Thresholds;
  /** The flow's recovery point objective (config `flows."<id>".rpoSeconds`, default thresholds.lagSeconds). */
  rpoSeconds: number;
  now: number;
  /** The flow's content audit (lib/audit): null when none ran yet; absent when the caller has no audit (no content check). */
  audit?: FlowAuditView | null;
}

const shownItems = 8;

function makeCheck(id: ReadinessCheck["id"], title: string, status: ReadinessStatus, message: string, items: ReadinessCheck["items"] = []): ReadinessCheck {
  // Only text and link: callers pass their problems, whose status is already in the check's.
  return { id, title, status, message, items: items.slice(0, shownItems).map(({ text, href }) => ({ text, href })) };
}

function worstOf(statuses: ReadinessStatus[]): ReadinessStatus {
  const order: ReadinessStatus[] = ["not-ready", "unknown", "degraded"];
  return order.find((s) => statuses.includes(s)) ?? "ok";
}

/**
 * Every MM2 connector of the flow RUNNING with at least one task, all RUNNING. The source
 * connector copies the data (not ready without it); the checkpoint connector translates the
 * groups' offsets and the heartbeat connector proves the flow alive (degraded without them).
 */
export function checkConnectors({ snapshot, flow }: ReadinessInput): ReadinessCheck {
  const title = "MM2 connectors";
  const found = findFlowConnectors(snapshot, flow);
  if (found.kind === "unknown") return makeCheck("connectors", title, "unknown", found.why);
  const roles = listConnectorRoles(flow);
  const problems: { status: ReadinessStatus; text: string }[] = [];
  if (roles.every((r) => r.role !== "source")) problems.push({ status: "not-ready", text: "no MirrorSourceConnector copies this flow" });
  for (const { name, role, missing } of roles) {
    if (name === null) {
      if (role !== "source") problems.push({ status: missing, text: `no ${role} connector (${role === "checkpoint" ? "groups' offsets are not translated" : "no liveness signal"})` });
      continue;
    }
    const problem = describeConnectorProblem(found.connectors.find((c) => c.name === name));
    if (problem !== null) problems.push({ status: missing, text: `${name} (${role}): ${problem}` });
  }
  if (problems.length === 0) return makeCheck("connectors", title, "ok", `every connector RUNNING (${found.where})`);
  const status = worstOf(problems.map((p) => p.status));
  return makeCheck("connectors", title, status, problems[0]!.text + (problems.length > 1 ? ` (+${problems.length - 1} more)` : ""), problems.map((p) => ({ text: p.text, href: "/connect" })));
}

interface ConnectorRole {
  name: string | null;
  role: "source" | "checkpoint" | "heartbeat";
  missing: ReadinessStatus;
}

/** The flow's connectors by role; dedicated-mode MM2 names them by class (MirrorHerder.configureConnectors). */
function listConnectorRoles(flow: Flow): ConnectorRole[] {
  if (flow.discoveredFrom === "dedicated-topics") {
    return [
      { name: "MirrorSourceConnector", role: "source", missing: "not-ready" },
      { name: "MirrorCheckpointConnector", role: "checkpoint", missing: "degraded" },
      { name: "MirrorHeartbeatConnector", role: "heartbeat", missing: "degraded" },
    ];
  }
  return [
    ...flow.connectors.sources.map((name): ConnectorRole => ({ name, role: "source", missing: "not-ready" })),
    { name: flow.connectors.checkpoint, role: "checkpoint", missing: "degraded" },
    { name: flow.connectors.heartbeat, role: "heartbeat", missing: "degraded" },
  ];
}

type FoundConnectors = { kind: "known"; connectors: Connector[]; where: string } | { kind: "unknown"; why: string };

function findFlowConnectors(snapshot: Snapshot, flow: Flow): FoundConnectors {
  if (flow.discoveredFrom === "dedicated-topics") {
    const status = flow.dedicatedStatus;
    if (status === undefined) return { kind: "unknown", why: "dedicated-mode MM2: its connector states were not read" };
    if (status.error !== null) return { kind: "unknown", why: `dedicated-mode MM2: ${status.topic} unreadable (${status.error})` };
    return { kind: "known", connectors: status.connectors, where: `dedicated mode, ${status.topic}` };
  }
  // A flow's source connectors can run on several Connect clusters: each is read on its own.
  const found: Connector[] = [];
  const names = listConnectClusters(flow.connectors);
  for (const name of names.length > 0 ? names : [null]) {
    const connect = snapshot.connect.find((c) => c.name === name);
    if (connect === undefined) return { kind: "unknown", why: `Connect cluster ${name ?? "?"} is not configured` };
    if (!connect.reachable) {
      const age = connect.dataAt === null ? "never read" : `last read ${formatAge(snapshot.takenAt - connect.dataAt)} ago`;
      return { kind: "unknown", why: `Connect ${connect.name} did not answer (${connect.error ?? "no answer"}; ${age})` };
    }
    found.push(...connect.connectors.filter((c) => findConnectCluster(flow.connectors, c.name) === connect.name));
  }
  return { kind: "known", connectors: found, where: `Connect ${names.join(", ")}` };
}

function describeConnectorProblem(connector: Connector | undefined): string | null {
  if (connector === undefined) return "missing";
  if (connector.state !== ConnectorState.RUNNING) return `connector ${connector.state}`;
  if (connector.tasks.length === 0) return "RUNNING with no task (copies nothing)";
  const bad = connector.tasks.filter((t) => t.state !== ConnectorState.RUNNING);
  return bad.length === 0 ? null : `task ${bad.map((t) => `${t.id} ${t.state}`).join(", ")}`;
}

/**
 * Every source topic of the flow exists on the target with the same partition count (KAFKA-9981:
 * MM2 stops syncing a topic whose partition counts differ); a filter that matches nothing is not ready.
 */
export function checkTopics({ snapshot, flow }: ReadinessInput): ReadinessCheck {
  const title = "Topics on the target";
  // Heartbeats topics are copied whatever the filter says: a filter that takes nothing else copies no data.
  if (flow.partitions.length === 0 || flow.coverage?.matchedByFilter === 0) {
    return makeCheck("topics", title, "not-ready", `MM2's topic filter (${flow.topicsFilter}) matches no source topic`, [{ text: "topic coverage", href: `${flowPath(flow.id)}#coverage` }]);
  }
  const target = freshCluster(snapshot, flow.target);
  if (target === null) return makeCheck("topics", title, "unknown", `${flow.target} did not answer this cycle`);
  const counts = countPartitionsByTopic(flow);
  const targetTopics = indexTopics(target);
  const items: ReadinessCheck["items"] = [];
  for (const [topic, { targetTopic, partitions }] of counts) {
    const remote = targetTopics.get(targetTopic);
    const href = flowPath(flow.id, "topics", topic);
    if (remote === undefined) items.push({ text: `${targetTopic} missing on ${flow.target}`, href });
    else if (remote.partitions.length !== partitions) {
      items.push({ text: `${targetTopic} has ${remote.partitions.length} partitions, ${topic} has ${partitions}`, href });
    }
  }
  if (items.length === 0) return makeCheck("topics", title, "ok", `all ${counts.size} topics exist on ${flow.target} with the same partition counts`);
  return makeCheck("topics", title, "not-ready", `${items.length} of ${counts.size} topics missing or different on ${flow.target}: ${items[0]!.text}`, items);
}

type TopicCounts = ReadonlyMap<string, { readonly targetTopic: string; readonly partitions: number }>;

/** Per partition list (one per cycle and flow): two checks read it, and a flow may have 10,000s of partitions. */
const countsOf = new WeakMap<readonly FlowPartition[], TopicCounts>();

function countPartitionsByTopic(flow: Flow): TopicCounts {
  const known = countsOf.get(flow.partitions);
  if (known) return known;
  const counts = new Map<string, { targetTopic: string; partitions: number }>();
  for (const p of flow.partitions) {
    const entry = counts.get(p.topic);
    if (entry) entry.partitions++;
    else counts.set(p.topic, { targetTopic: p.targetTopic, partitions: 1 });
  }
  countsOf.set(flow.partitions, counts);
  return counts;
}

/** Per cluster's topic list (one per cycle): name → its first topic, so a check of 1,000s of topics does not scan. */
const topicsOf = new WeakMap<readonly TopicState[], ReadonlyMap<string, TopicState>>();

function indexTopics(cluster: ClusterSnapshot): ReadonlyMap<string, TopicState> {
  const known = topicsOf.get(cluster.topics);
  if (known) return known;
  const byName = new Map<string, TopicState>();
  // The first of a name, as Array.find gives.
  for (const t of cluster.topics) if (!byName.has(t.name)) byName.set(t.name, t);
  topicsOf.set(cluster.topics, byName);
  return byName;
}

function freshCluster(snapshot: Snapshot, alias: string): ClusterSnapshot | null {
  const cluster = snapshot.clusters.find((c) => c.alias === alias);
  return cluster !== undefined && cluster.reachable && !cluster.stale ? cluster : null;
}

/**
 * The target topic's settings that decide whether records survive are not weaker than the
 * source's: a different cleanup.policy loses records (KAFKA-12254), shorter retention deletes
 * copies the source still holds, a smaller max.message.bytes rejects records the source accepts,
 * a lower min.insync.replicas or unclean election may lose acknowledged records.
 */
export function checkTopicConfigs({ snapshot, flow }: ReadinessInput): ReadinessCheck {
  const title = "Target topic settings";
  const source = freshCluster(snapshot, flow.source);
  const target = freshCluster(snapshot, flow.target);
  if (source === null || target === null) return makeCheck("configs", title, "unknown", `${source === null ? flow.source : flow.target} did not answer this cycle`);
  const problems: { status: ReadinessStatus; text: string; href: string }[] = [];
  let unread = 0;
  const [sourceTopics, targetTopics] = [indexTopics(source), indexTopics(target)];
  for (const [topic, { targetTopic }] of countPartitionsByTopic(flow)) {
    const from = sourceTopics.get(topic)?.configs ?? null;
    const to = targetTopics.get(targetTopic)?.configs ?? null;
    if (from === null || to === null) {
      unread++;
      continue;
    }
    for (const drift of compareTopicConfigs(from, to)) problems.push({ ...drift, text: `${targetTopic}: ${drift.text}`, href: flowPath(flow.id, "topics", topic) });
  }
  if (problems.length > 0) {
    const status = worstOf(problems.map((p) => p.status));
    return makeCheck("configs", title, status, `${problems.length} setting${problems.length === 1 ? "" : "s"} weaker on ${flow.target}: ${problems[0]!.text}`, problems);
  }
  if (unread > 0) return makeCheck("configs", title, "unknown", `settings of ${unread} topic${unread === 1 ? "" : "s"} not read yet (refreshed every few cycles)`);
  return makeCheck("configs", title, "ok", "cleanup.policy, retention, max.message.bytes, min.insync.replicas and unclean election on the target match or are safer than the source's");
}

function compareTopicConfigs(source: TopicConfigs, target: TopicConfigs): { status: ReadinessStatus; text: string }[] {
  const out: { status: ReadinessStatus; text: string }[] = [];
  if (normalizePolicy(source.cleanupPolicy) !== normalizePolicy(target.cleanupPolicy)) {
    out.push({ status: "not-ready", text: `cleanup.policy=${target.cleanupPolicy}, source has ${source.cleanupPolicy}` });
  }
  if (isShorter(target.retentionMs, source.retentionMs)) {
    out.push({ status: "degraded", text: `retention.ms=${describeLimit(target.retentionMs)}, source keeps ${describeLimit(source.retentionMs)}` });
  }
  if (isShorter(target.retentionBytes, source.retentionBytes)) {
    out.push({ status: "degraded", text: `retention.bytes=${describeLimit(target.retentionBytes)}, source keeps ${describeLimit(source.retentionBytes)}` });
  }
  // Degraded, not not-ready: every record copied so far fitted (a larger one fails MM2's task with
  // RecordTooLargeException, which the connectors check reports), so failing over now loses nothing; it is the
  // next large record that stops the copy, and producers that fail over to the target get it rejected.
  const [maxFrom, maxTo] = [source.maxMessageBytes ?? null, target.maxMessageBytes ?? null];
  if (maxFrom !== null && maxTo !== null && maxTo < maxFrom) {
    out.push({ status: "degraded", text: `max.message.bytes=${maxTo}, source accepts ${maxFrom}: larger records stop MM2's copy` });
  }
  // The effective values (the topic's override, else the broker's): fewer replicas must acknowledge on the target.
  if (source.minInsyncReplicas !== null && target.minInsyncReplicas !== null && target.minInsyncReplicas < source.minInsyncReplicas) {
    out.push({ status: "degraded", text: `min.insync.replicas=${target.minInsyncReplicas}, source requires ${source.minInsyncReplicas}` });
  }
  if (target.uncleanLeaderElection && !source.uncleanLeaderElection) {
    out.push({ status: "degraded", text: "unclean.leader.election.enable=true (the source's is false)" });
  }
  return out;
}

/** "compact,delete" and "delete,compact" are one policy. */
function normalizePolicy(policy: string): string {
  return policy.split(",").map((p) => p.trim()).sort().join(",");
}

/** null = infinite (-1). */
function isShorter(target: bigint | null, source: bigint | null): boolean {
  return target !== null && (source === null || target < source);
}

function describeLimit(value: bigint | null): string {
  return value === null ? "-1 (forever)" : value.toString();
}

/**
 * What the target lacks now is within the flow's RPO: the oldest record not yet copied is younger
 * than rpoSeconds. Partitions whose data is unknown this cycle make the check unknown.
 */
export function checkLag({ snapshot, flow, rpoSeconds }: ReadinessInput): ReadinessCheck {
  const title = `Lag within the RPO (${formatAge(rpoSeconds * 1000)})`;
  const unknown = flow.partitions.filter((p) => p.unknown !== null || p.lag === null);
  const known = flow.partitions.filter((p) => p.unknown === null && p.lag !== null);
  const lag = known.reduce((sum, p) => sum + (p.lag ?? 0n), 0n);
  const stamps = known.filter((p) => (p.lag ?? 0n) > 0n).map((p) => p.oldestUnreplicatedTimestamp);
  const oldest = stamps.filter((t): t is number => t !== null);
  const ageMs = oldest.length === 0 ? 0 : Math.max(0, snapshot.takenAt - Math.min(...oldest));
  const lagText = `${formatCount(lag)} record${lag === 1n ? "" : "s"} not yet copied`;
  if (ageMs > rpoSeconds * 1000) {
    return makeCheck("lag", title, "degraded", `${lagText}, the oldest ${formatAge(ageMs)} old: beyond the RPO`, [{ text: lagText, href: flowPath(flow.id) }]);
  }
  if (unknown.length > 0) return makeCheck("lag", title, "unknown", `${unknown.length} partition${unknown.length === 1 ? "" : "s"} could not be read this cycle; ${lagText} elsewhere`);
  if (stamps.some((t) => t === null)) return makeCheck("lag", title, "unknown", `${lagText}; the age of some is unknown`);
  return makeCheck("lag", title, "ok", lag === 0n ? "every record copied" : `${lagText}, the oldest ${formatAge(ageMs)} old`);
}

/** Firing alerts of the flow that make the copy unusable now, and those that make it cost more. */
const blockingFlowAlerts: FindingTypeName[] = [
  FindingType.DATA_LOSS,
  FindingType.TOPIC_RESET,
  FindingType.TASK_FAILED,
  FindingType.TASK_STALLED,
  FindingType.TASK_NOT_RUNNING,
  FindingType.MM2_CONNECTOR_MISSING,
  FindingType.TARGET_TRUNCATED,
];
/** Cluster alerts that block when they concern the target: nothing sound to fail over to. */
const blockingTargetAlerts: FindingTypeName[] = [FindingType.OFFLINE, FindingType.UNCLEAN_TRUNCATION];
const costlyFlowAlerts: FindingTypeName[] = [FindingType.MM2_POSITION_MOVED, FindingType.ABORTED_RECORDS_COPIED, FindingType.RETENTION_RISK];

/**
 * No open loss (firing, or stopped growing and not acknowledged), reset, truncation, failed, stalled, not running
 * or missing connector or task on the flow, and no offline partition or unclean truncation on the target.
 */
export function checkAlerts({ flow, alerts }: ReadinessInput): ReadinessCheck {
  const title = "Open alerts";
  // A loss that stopped growing stays open until acknowledged (loss-alerts.ts): its records are still gone.
  const open = alerts.filter((a) => a.state === "firing" || isAwaitingAttention(a));
  const ofFlow = open.filter((a) => a.flow === flow.id);
  const blocking = [
    ...ofFlow.filter((a) => blockingFlowAlerts.includes(a.type)),
    ...open.filter((a) => a.flow === null && a.cluster === flow.target && blockingTargetAlerts.includes(a.type)),
  ];
  const costly = ofFlow.filter((a) => costlyFlowAlerts.includes(a.type));
  const items = [...blocking, ...costly].map((a) => ({ text: `${a.type}: ${a.summary}`, href: linkAlertEvidence(a) }));
  if (blocking.length > 0) return makeCheck("alerts", title, "not-ready", `${blocking.length} open: ${blocking[0]!.type} — ${blocking[0]!.summary}`, items);
  if (costly.length > 0) return makeCheck("alerts", title, "degraded", `${costly.length} open: ${costly[0]!.type} — ${costly[0]!.summary}`, items);
  return makeCheck("alerts", title, "ok", "no open data loss, reset, truncation, failed or stalled task");
}

/**
 * Every consumer group reading a replicated topic is checkpointed, and failing over with MM2's
 * offsets neither skips records nor re-reads more than translationReplayRecords.
 */
export function checkGroups({ flow, translation, alerts, thresholds }: ReadinessInput): ReadinessCheck {
  const title = "Consumer groups";
  if (translation === null || !translation.syncsLoaded) return makeCheck("groups", title, "unknown", "MM2's offset syncs could not be read: groups cannot be translated");
  const groupHref = (group: string) => flowPath(flow.id, "groups", group);
  const problems: { status: ReadinessStatus; text: string; href: string | null }[] = [];
  for (const group of translation.groups) {
    const t = group.totals;
    if (group.unknown !== null) problems.push({ status: "unknown", text: `${group.group}: offsets unknown (${group.unknown})`, href: groupHref(group.group) });
    else if (t.skippingPartitions > 0) problems.push({ status: "degraded", text: `${group.group} would skip records on ${t.skippingPartitions} partition(s)`, href: groupHref(group.group) });
    else if (t.untranslatable > 0) problems.push({ status: "degraded", text: `${group.group}: ${t.untranslatable} partition(s) not checkpointed yet`, href: groupHref(group.group) });
    else if (t.failoverReplayRecords > BigInt(thresholds.translationReplayRecords)) {
      problems.push({ status: "degraded", text: `${group.group} would re-read ${formatCount(t.failoverReplayRecords)} records`, href: groupHref(group.group) });
    }
  }
  for (const group of translation.excludedGroups) {
    problems.push({ status: "degraded", text: `${group}: MM2's groups filter leaves it out (restarts from its reset policy after failover)`, href: null });
  }
  for (const group of translation.uncheckpointedGroups) {
    problems.push({ status: "degraded", text: `${group.group}: a ${group.groupType} group, which MM2 does not checkpoint (restarts from its reset policy after failover)`, href: null });
  }
  const stale = alerts.filter((a) => a.state === "firing" && a.flow === flow.id && a.type === FindingType.CHECKPOINT_STALE);
  for (const a of stale) problems.push({ status: "degraded", text: `${a.group ?? "?"}: checkpoints stale`, href: linkAlertEvidence(a) });
  if (problems.length === 0) {
    const n = translation.groups.length;
    return makeCheck("groups", title, "ok", n === 0 ? "no consumer group reads the replicated topics" : `all ${n} groups checkpointed and within the re-read budget`);
  }
  return makeCheck("groups", title, worstOf(problems.map((p) => p.status)), problems[0]!.text + (problems.length > 1 ? ` (+${problems.length - 1} more)` : ""), problems);
}

/** MM2's heartbeats arrive on the target within the RPO: the flow is alive end to end. */
export function checkHeartbeats({ flow, rpoSeconds }: ReadinessInput): ReadinessCheck {
  const title = "Heartbeats";
  const latency = flow.heartbeat.latencyMs;
  if (latency === null) {
    if (flow.connectors.heartbeat === null && flow.discoveredFrom === "connect") return makeCheck("heartbeats", title, "degraded", "no heartbeat connector: nothing proves the flow alive end to end");
    return makeCheck("heartbeats", title, "degraded", `no heartbeat from ${flow.source} seen on ${flow.target} yet`);
  }
  if (latency > rpoSeconds * 1000) return makeCheck("heartbeats", title, "degraded", `the newest heartbeat is ${formatAge(latency)} old: beyond the RPO`);
  return makeCheck("heartbeats", title, "ok", `the newest heartbeat is ${formatAge(latency)} old`);
}

/**
 * The content audit's line: how many records' content was verified on the target over the last hour, and what did
 * not match since start. Informational ("ok"): the audit adds proof to the other checks and never stands in for one;
 * an unexplained mismatch raises AUDIT_MISMATCH (critical), which the alerts check already counts.
 */
export function checkContent({ flow, audit }: ReadinessInput): ReadinessCheck {
  const title = "Record content";
  if (!audit) return makeCheck("content", title, "ok", "no record content audited yet (audit disabled, or no copied record sampled yet)");
  const t = audit.totals;
  const problems = [[t.mismatched, "mismatched"], [t.missing, "missing on the target"], [t.duplicates, "held twice"], [t.foreign, "target records not from this source"]] as const;
  const notes = problems.filter(([n]) => n > 0).map(([n, what]) => `${formatCount(n)} ${what}`);
  const items = audit.problems.map((p) => ({
    text: `${p.outcome}: ${p.topic}[${p.partition}] source ${p.sourceOffset ?? "—"} → target ${p.targetOffsets.join(", ")}`,
    href: flowPath(flow.id, "topics", p.topic, p.partition),
  }));
  const message = `content verified for ${formatCount(audit.verifiedLastHour)} records over the last hour` + (notes.length > 0 ? `; since start ${notes.join(", ")}` : "");
  return makeCheck("content", title, "ok", message, items);
}
