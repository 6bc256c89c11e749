import type { FlowOverrides } from "@/lib/config";
import type { Connector } from "@/lib/connect/types";
import {
  type CheckpointTiming,
  combineTopicRefreshMs,
  createDefaultReplicationPolicy,
  createReplicationPolicy,
  defaultCheckpointTiming,
  defaultGroupsExclude,
  locateOffsetSyncsTopic,
  nameDedicatedModeTopics,
  nameTargetTopics,
  readCheckpointTiming,
  readGroupFilterSettings,
  readMirrorEnabled,
  readSourceTaskSettings,
  judgeTopic,
  readTopicFilter,
  readTopicRefreshMs,
  type ReplicationPolicy,
  type SourceTaskSettings,
  type TopicFilterSpec,
} from "@/lib/mm2";
import type { FlowConfigWarning } from "./types";

/** What Gapwatch knows about one MM2 flow before reading any offsets. */
export interface FlowDefinition {
  id: string;
  source: string;
  target: string;
  discoveredFrom: "connect" | "dedicated-topics";
  connectCluster: string | null;
  connectors: {
    source: string | null;
    sources: string[];
    checkpoint: string | null;
    heartbeat: string | null;
    /** The Connect cluster of each source connector, by name, when the flow's connectors are on several. */
    sourceClusters?: Record<string, string>;
  };
  policy: ReplicationPolicy;
  topicsFilter: string;
  /**
   * Each source connector's topic filter, in `connectors.sources` order; in dedicated mode the
   * MirrorSourceConnector's from MM2's config topic (none while that is unknown).
   */
  topicFilters: { connector: string; spec: TopicFilterSpec }[];
  groupsFilter: string;
  groupsExclude: string;
  checkpointTiming: CheckpointTiming;
  warnings: FlowConfigWarning[];
  offsetSyncs: { cluster: string; topic: string };
  checkpointsTopic: string;
  heartbeatsTopic: string;
  /** Dedicated mode: Connect's offsets topic on the target holding MM2's positions. */
  positionsTopic: string | null;
  /** Dedicated mode: why MM2's connector configs were not read completely this cycle (a flow error), or null. */
  configReadError: string | null;
  /** The checkpoint connector's sync.group.offsets.enabled; absent without a checkpoint connector config. */
  syncGroupOffsets?: boolean;
  /** The (first) MirrorSourceConnector's offset-sync and consumer reset settings; absent = MM2's defaults. */
  sourceTaskSettings?: SourceTaskSettings;
  /** The longest `refresh.topics.interval.seconds` of the source connectors, in ms (null: every one has it off). */
  topicRefreshMs?: number | null;
  /** Each source connector's own settings by name (a topic's are those of the connector that copies it). */
  sourceSettingsByConnector?: Record<string, SourceTaskSettings>;
  /** A retained flow whose source connectors its Connect cluster no longer lists (retained-flows.ts). */
  connectorMissing?: FlowConnectorMissing;
}

/** The source connectors of a flow that its Connect cluster, answering, no longer lists, and since when (epoch ms). */
export interface FlowConnectorMissing {
  connectors: string[];
  since: number;
}

/** Dedicated mode: MM2's connector configs of one alias pair, from `mm2-configs.<source>.internal` (dedicated-configs.ts). */
export interface DedicatedConfigs {
  topic: string;
  /** Connector configs by name as of the newest complete read; null while no read was complete (unknown). */
  connectors: ReadonlyMap<string, Readonly<Record<string, string>>> | null;
  /** Why this cycle's read was not complete, or null. */
  error: string | null;
}

/** What flow discovery needs of a connector: its name and config. */
type ConnectorConfig = Pick<Connector, "name" | "config">;

const mm2Package = "org.apache.kafka.connect.mirror";

const mirrorClass = {
  source: "MirrorSourceConnector",
  checkpoint: "MirrorCheckpointConnector",
  heartbeat: "MirrorHeartbeatConnector",
} as const;

/** `<source>-><target>`, the flow id used in URLs (URL-encoded there). */
export function formatFlowId(source: string, target: string): string {
  return `${source}->${target}`;
}

/**
 * Finds MM2 flows from the connector configs on Connect: the MirrorSourceConnectors of one alias
 * pair `source.cluster.alias -> target.cluster.alias` on one Connect cluster form one flow (the
 * first by name gives the replication policy, separator and `offset-syncs.topic.location`; each
 * brings its topic filter); checkpoint and heartbeat connectors with the same aliases join it, the
 * checkpoint connector with its group filter and timing (from any Connect cluster). Source
 * connectors of one alias pair on several Connect clusters form one flow too (each read from its
 * own cluster, `connectors.sourceClusters`); a connector name on two Connect clusters is read on
 * the first (by config order) with a warning. Two source connectors whose filters both take a
 * topic are warned (topic-overlap). Then
 * dedicated-mode MM2 (no public REST API): a topic `mm2-offsets.<source>.internal` on a cluster
 * means a herder from `<source>` to that cluster ran, and `dedicated` (by flow id) holds its
 * connector configs (defineDedicatedFlow).
 * `overrides` (config `flows.<id>`) set the replication policy where MM2's class is unknown.
 */
export function discoverFlows(
  connect: readonly { name: string; connectors: readonly Connector[] }[],
  clusters: readonly { alias: string; topicNames: readonly string[] }[],
  overrides: FlowOverrides = {},
  dedicated: ReadonlyMap<string, DedicatedConfigs> = new Map(),
): FlowDefinition[] {
  const flows = new Map<string, FlowDefinition>();
  // The first source connector (by Connect cluster in config order, then name) of each flow.
  const firstSource = new Map<string, Connector>();
  for (const cluster of connect) {
    const mirror = cluster.connectors
      .filter((c) => classKind(c.connectorClass) !== null)
      .sort((a, b) => a.name.localeCompare(b.name));
    for (const c of mirror.filter((m) => classKind(m.connectorClass) === "source")) {
      const id = formatFlowId(c.config["source.cluster.alias"] ?? "", c.config["target.cluster.alias"] ?? "");
      const existing = flows.get(id);
      const first = firstSource.get(id);
      if (existing) {
        if (first) joinSourceConnector(existing, cluster.name, c, first);
        continue;
      }
      const def = defineFromSourceConnector(cluster.name, c, overrides);
      if (!def) continue;
      flows.set(def.id, def);
      firstSource.set(def.id, c);
    }
    for (const c of mirror) {
      const kind = classKind(c.connectorClass);
      const id = formatFlowId(c.config["source.cluster.alias"] ?? "source", c.config["target.cluster.alias"] ?? "target");
      const flow = flows.get(id);
      if (!flow || kind === "source" || kind === null || flow.connectors[kind]) continue;
      flow.connectors[kind] = c.name;
      if (kind !== "checkpoint") continue;
      applyCheckpointSettings(flow, c.config);
    }
  }
  for (const def of flows.values()) warnTopicOverlaps(def, clusters.find((c) => c.alias === def.source)?.topicNames ?? []);
  const aliases = new Set(clusters.map((c) => c.alias));
  for (const cluster of clusters) {
    for (const source of aliases) {
      if (source === cluster.alias) continue;
      const id = formatFlowId(source, cluster.alias);
      if (flows.has(id) || !cluster.topicNames.includes(nameDedicatedModeTopics(source).offsets)) continue;
      const def = defineDedicatedFlow(source, cluster.alias, dedicated.get(id), overrides);
      if (def) flows.set(id, def);
    }
  }
  return [...flows.values()].sort((a, b) => a.id.localeCompare(b.id));
}

/**
 * A flow Connect no longer lists, from what Gapwatch kept of it (retained-flows.ts): its first source connector's
 * settings give the policy, the offset-syncs topic and the topic filter, as when it was found; its connectors
 * are named as they were.
 */
export function defineRetainedFlow(
  record: {
    connectCluster: string;
    connectors: { sources: string[]; checkpoint: string | null; heartbeat: string | null };
    sourceConfig: Record<string, string>;
    sourceConfigs?: Record<string, Record<string, string>>;
    sourceClusters?: Record<string, string>;
  },
  overrides: FlowOverrides = {},
): FlowDefinition | null {
  const { sources, checkpoint, heartbeat } = record.connectors;
  const first = sources[0];
  if (first === undefined) return null;
  const def = defineFromSourceConnector(record.connectCluster, { name: first, config: record.sourceConfig }, overrides);
  if (def === null) return null;
  def.connectors = { source: first, sources: [first], checkpoint, heartbeat };
  for (const name of sources.slice(1)) {
    addKeptSourceConnector(def, name, record.sourceConfigs?.[name] ?? {}, record.sourceClusters?.[name] ?? record.connectCluster);
  }
  return def;
}

/**
 * Adds a source connector Gapwatch kept although its Connect cluster no longer lists it (retained-flows.ts) to a
 * flow: named among its sources, with its topic filter from the settings kept (its topics stay in the flow).
 */
export function addKeptSourceConnector(def: FlowDefinition, name: string, config: Record<string, string>, connectCluster: string): void {
  if (def.connectors.sources.includes(name)) return;
  def.connectors.sources.push(name);
  if (connectCluster !== def.connectCluster || def.connectors.sourceClusters !== undefined) {
    def.connectors.sourceClusters = { ...def.connectors.sourceClusters, [name]: connectCluster };
  }
  def.sourceSettingsByConnector = { ...def.sourceSettingsByConnector, [name]: readSourceTaskSettings(config) };
  addTopicFilter(def, { name, config });
}

/**
 * A dedicated-mode flow `source -> target`, from the connector configs its herder stored:
 * - known configs: a flow only when a MirrorSourceConnector config exists (a tombstone deleted it)
 *   and its `enabled` is not false — MirrorMakerConfig.clusterPairs also runs a herder, with every
 *   connector disabled, for each pair `B->A` whose heartbeats are on (MM2's default) so that `A->B`
 *   gets them: its offsets topic names no flow. The flow then reads that config exactly as a Connect
 *   connector's (topic filter, replication policy, offset-syncs location), and the checkpoint
 *   connector's group filter and timing;
 * - configs not read completely yet (unknown): a flow as before MM2's configs were read — MM2's
 *   default policy (or the config override), no topic filter (membership: MM2 holds a position for the
 *   topic or its remote topic exists), default groups — with the reason as a flow error.
 */
function defineDedicatedFlow(source: string, target: string, configs: DedicatedConfigs | undefined, overrides: FlowOverrides): FlowDefinition | null {
  const topics = nameDedicatedModeTopics(source);
  const known = configs?.connectors ?? null;
  const configReadError = configs?.error ?? (known === null ? `MM2 connector configs from ${target}/${topics.configs} not read` : null);
  const dedicatedFields = () => ({
    discoveredFrom: "dedicated-topics" as const,
    connectCluster: null,
    connectors: { source: null, sources: [], checkpoint: null, heartbeat: null },
    positionsTopic: topics.offsets,
    configReadError,
  });
  if (known === null) {
    const id = formatFlowId(source, target);
    const override = overrides[id]?.replicationPolicy;
    const policy = override ? createReplicationPolicy(override.kind, override.separator ?? ".", source) : createDefaultReplicationPolicy();
    return {
      id,
      source,
      target,
      ...dedicatedFields(),
      policy,
      topicsFilter: ".*",
      topicFilters: [],
      groupsFilter: ".*",
      groupsExclude: defaultGroupsExclude,
      checkpointTiming: defaultCheckpointTiming,
      warnings: [],
      offsetSyncs: { cluster: source, topic: locateOffsetSyncsTopic(policy, { source, target }).topic },
      ...targetTopicsOf(policy, source),
    };
  }
  const named = [...known].map(([name, config]) => ({ name, config })).sort((a, b) => a.name.localeCompare(b.name));
  const sourceConnector = named.find((c) => classKind(c.config["connector.class"] ?? "") === "source");
  if (!sourceConnector || readMirrorEnabled(sourceConnector.config) === false) return null;
  // The herder fills in both aliases (connectorBaseConfig); the target is the cluster the topic is on.
  const withAliases = { ...sourceConnector, config: { ...sourceConnector.config, "source.cluster.alias": source, "target.cluster.alias": target } };
  const def = defineFromSourceConnector(null, withAliases, overrides)!;
  const checkpoint = named.find((c) => classKind(c.config["connector.class"] ?? "") === "checkpoint");
  if (checkpoint) applyCheckpointSettings(def, checkpoint.config);
  return { ...def, ...dedicatedFields() };
}

function applyCheckpointSettings(def: FlowDefinition, config: Readonly<Record<string, string>>): void {
  const groups = readGroupFilterSettings(config);
  def.groupsFilter = groups.groups;
  def.groupsExclude = groups.groupsExclude;
  def.checkpointTiming = readCheckpointTiming(config);
  // MirrorCheckpointConfig.SYNC_GROUP_OFFSETS_ENABLED (default false).
  def.syncGroupOffsets = config["sync.group.offsets.enabled"]?.trim().toLowerCase() === "true";
}

function defineFromSourceConnector(connectCluster: string | null, c: ConnectorConfig, overrides: FlowOverrides): FlowDefinition | null {
  const source = c.config["source.cluster.alias"];
  const target = c.config["target.cluster.alias"];
  if (!source || !target) return null;
  const id = formatFlowId(source, target);
  const { policy, warning } = resolvePolicy(c, overrides[id]?.replicationPolicy);
  const location = c.config["offset-syncs.topic.location"] === "target" ? "target" : "source";
  const syncs = locateOffsetSyncsTopic(policy, { source, target, location });
  const def: FlowDefinition = {
    id,
    source,
    target,
    discoveredFrom: "connect",
    connectCluster,
    connectors: { source: c.name, sources: [c.name], checkpoint: null, heartbeat: null },
    policy,
    topicsFilter: c.config.topics ?? ".*",
    topicFilters: [],
    groupsFilter: ".*",
    groupsExclude: defaultGroupsExclude,
    checkpointTiming: defaultCheckpointTiming,
    warnings: warning ? [warning] : [],
    offsetSyncs: { cluster: location === "source" ? source : target, topic: syncs.topic },
    ...targetTopicsOf(policy, source),
    positionsTopic: null,
    configReadError: null,
    sourceTaskSettings: readSourceTaskSettings(c.config),
    topicRefreshMs: readTopicRefreshMs(c.config),
  };
  addTopicFilter(def, c);
  return def;
}

/**
 * Adds a further source connector of the same alias pair (on this or another Connect cluster): its filter and
 * settings, and a warning when its replication policy differs from the first one's (strimzi#4498: MM2's
 * connectors must agree).
 */
function joinSourceConnector(def: FlowDefinition, connectCluster: string, c: Connector, first: Connector): void {
  const elsewhere = def.connectors.sourceClusters?.[c.name] ?? (def.connectors.sources.includes(c.name) ? def.connectCluster : undefined);
  if (elsewhere !== undefined && elsewhere !== null) {
    def.warnings.push({
      kind: "connector-name",
      connector: c.name,
      subject: connectCluster,
      message:
        `source connector ${c.name} exists on Connect clusters ${elsewhere} and ${connectCluster}: ` +
        `Gapwatch reads the one on ${elsewhere}; give each connector its own name`,
    });
    return;
  }
  def.connectors.sources.push(c.name);
  if (connectCluster !== def.connectCluster || def.connectors.sourceClusters !== undefined) {
    def.connectors.sourceClusters ??= Object.fromEntries(def.connectors.sources.slice(0, -1).map((n) => [n, def.connectCluster ?? ""]));
    def.connectors.sourceClusters[c.name] = connectCluster;
  }
  def.sourceSettingsByConnector ??= { [first.name]: readSourceTaskSettings(first.config) };
  def.sourceSettingsByConnector[c.name] = readSourceTaskSettings(c.config);
  addTopicFilter(def, c);
  def.topicRefreshMs = combineTopicRefreshMs(def.topicRefreshMs ?? null, readTopicRefreshMs(c.config));
  const own = describePolicy(c.config);
  const theirs = describePolicy(first.config);
  if (own === theirs) return;
  def.warnings.push({
    kind: "replication-policy",
    connector: c.name,
    subject: own,
    message:
      `source connector ${c.name} uses ${own}, unlike ${first.name} (${theirs}): ` +
      `Gapwatch names all the flow's topics as ${first.name} does`,
  });
}

/** Topics named in one overlap warning's message (the finding's evidence holds them all). */
const overlapTopicsShown = 5;

/**
 * Warns of source topics two of the flow's connectors both take (known filters only; heartbeats topics are taken
 * by every MirrorSourceConnector on purpose and are left out). Each connector then runs its own MirrorSourceTask
 * consumer assigned the topic's partitions (MirrorSourceTask.start: `consumer.assign`, positions from its own
 * offsets) and sends every record to the same remote topic (MirrorSourceTask.convertRecord:
 * `formatRemoteTopic`): the target holds each record twice, and both write offset syncs for the partition into the
 * one offset-syncs topic, so offset translation of its groups is unreliable. One warning per pair of connectors.
 */
function warnTopicOverlaps(def: FlowDefinition, topicNames: readonly string[]): void {
  const known = def.topicFilters.filter((f) => f.spec.kind === "default");
  if (known.length < 2) return;
  const byPair = new Map<string, string[]>();
  for (const topic of topicNames) {
    if (def.policy.isHeartbeatsTopic(topic)) continue;
    const takers = known.filter((f) => f.spec.kind === "default" && judgeTopic(f.spec.filter, def.policy, def, topic).replicated);
    for (let i = 0; i + 1 < takers.length; i++) {
      const pair = `${takers[i]!.connector} + ${takers[i + 1]!.connector}`;
      byPair.set(pair, [...(byPair.get(pair) ?? []), topic]);
    }
  }
  for (const [pair, topics] of byPair) {
    const sorted = topics.sort((a, b) => a.localeCompare(b));
    const shown = sorted.slice(0, overlapTopicsShown).join(", ") + (sorted.length > overlapTopicsShown ? ` and ${sorted.length - overlapTopicsShown} more` : "");
    def.warnings.push({
      kind: "topic-overlap",
      connector: pair,
      subject: pair,
      topics: sorted,
      message:
        `source connectors ${pair.replace(" + ", " and ")} both take ${shown}: each copies every record into the same ` +
        `remote topic (the target holds them twice) and both write its offset syncs (translation of its groups ` +
        `is unreliable); narrow one connector's topics or topics.exclude`,
    });
  }
}

/** A connector's replication policy class (MM2's own by simple name) and separator, in words. */
function describePolicy(config: Readonly<Record<string, string>>): string {
  const policyClass = config["replication.policy.class"]?.trim() || "DefaultReplicationPolicy";
  const simple = simpleClass(policyClass);
  const name = policyClass === `${mm2Package}.${simple}` ? simple : policyClass;
  return `${name} (separator "${config["replication.policy.separator"] ?? "."}")`;
}

/** Records a source connector's topic filter, and a warning when Gapwatch cannot evaluate it. */
function addTopicFilter(def: FlowDefinition, c: ConnectorConfig): void {
  const spec = readTopicFilter(c.config);
  def.topicFilters.push({ connector: c.name, spec });
  if (spec.kind === "unknown") {
    def.warnings.push({
      kind: "topic-filter",
      connector: c.name,
      subject: spec.subject,
      message:
        `${c.name}: ${spec.reason} cannot be evaluated by Gapwatch; a topic counts as replicated ` +
        // IdentityReplicationPolicy keeps names: a same-named target topic proves nothing (flow-membership.ts).
        (def.policy.kind === "identity"
          ? "when Connect holds MM2's offsets for it"
          : "when Connect holds MM2's offsets for it or its remote topic exists on the target"),
    });
  }
}

/**
 * The flow's replication policy from `replication.policy.class` and `replication.policy.separator`:
 * MM2's Default and Identity policies are mirrored; an override from the config wins; any other
 * class is read as the default policy with a warning naming it.
 */
function resolvePolicy(
  c: ConnectorConfig,
  override: { kind: "default" | "identity"; separator?: string } | undefined,
): { policy: ReplicationPolicy; warning: FlowConfigWarning | null } {
  const source = c.config["source.cluster.alias"] ?? "";
  const separator = c.config["replication.policy.separator"] ?? ".";
  if (override) return { policy: createReplicationPolicy(override.kind, override.separator ?? separator, source), warning: null };
  const policyClass = c.config["replication.policy.class"]?.trim() || "DefaultReplicationPolicy";
  const simple = simpleClass(policyClass);
  const mm2Policy = simple === "DefaultReplicationPolicy" || simple === "IdentityReplicationPolicy";
  const known = mm2Policy && [simple, `${mm2Package}.${simple}`].includes(policyClass);
  const policy = createReplicationPolicy(known && simple === "IdentityReplicationPolicy" ? "identity" : "default", separator, source);
  if (known) return { policy, warning: null };
  const id = formatFlowId(source, c.config["target.cluster.alias"] ?? "");
  return {
    policy,
    warning: {
      kind: "replication-policy",
      connector: c.name,
      subject: policyClass,
      message:
        `replication.policy.class ${policyClass} of ${c.name} is not one Gapwatch knows: ` +
        `topic names are read as DefaultReplicationPolicy (separator "${separator}") would name them; ` +
        `set flows."${id}".replicationPolicy in the config to say which it behaves like`,
    },
  };
}

function simpleClass(name: string): string {
  return name.split(".").at(-1) ?? "";
}

function targetTopicsOf(policy: ReplicationPolicy, source: string): { checkpointsTopic: string; heartbeatsTopic: string } {
  const names = nameTargetTopics(policy, source);
  return { checkpointsTopic: names.checkpoints, heartbeatsTopic: names.heartbeats };
}

function classKind(connectorClass: string): keyof typeof mirrorClass | null {
  const simple = connectorClass.split(".").at(-1) ?? "";
  for (const [kind, name] of Object.entries(mirrorClass) as [keyof typeof mirrorClass, string][]) {
    if (simple === name) return kind;
  }
  return null;
}
