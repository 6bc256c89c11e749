/**
 * Connector configs can hold credentials under any key (`sasl.jaas.config`, `basic.auth.user.info`, a transform's
 * own settings), so they leave the server through an allow-list: a key is shown only when it (after the client
 * prefixes MM2 and Connect use, e.g. `source.cluster.consumer.`) is one known to hold no secret; every other value
 * is replaced by "[redacted]". Names from MirrorConnectorConfig, MirrorSourceConfig, MirrorCheckpointConfig,
 * MirrorHeartbeatConfig and ConnectorConfig (connect/mirror and connect/runtime in Apache Kafka).
 */
const safeKeys = new Set([
  "name", "connector.class", "tasks.max", "key.converter", "value.converter", "header.converter", "transforms",
  "predicates", "errors.tolerance", "errors.log.enable", "errors.retry.timeout", "errors.retry.delay.max.ms",
  "exactly.once.support", "transaction.boundary", "offsets.storage.topic", "topic.creation.enable",
  "source.cluster.alias", "target.cluster.alias", "replication.policy.class", "replication.policy.separator",
  "replication.factor", "topics", "topics.exclude", "topics.blacklist", "groups", "groups.exclude", "groups.blacklist",
  "topic.filter.class", "group.filter.class", "config.property.filter.class", "config.properties.exclude",
  "config.properties.blacklist", "offset-syncs.topic.location", "offset-syncs.topic.replication.factor",
  "offset.lag.max", "sync.topic.configs.enabled", "sync.topic.configs.interval.seconds", "sync.topic.acls.enabled",
  "sync.topic.acls.interval.seconds", "sync.group.offsets.enabled", "sync.group.offsets.interval.seconds",
  "emit.checkpoints.enabled", "emit.checkpoints.interval.seconds", "emit.heartbeats.enabled",
  "emit.heartbeats.interval.seconds", "emit.offset-syncs.enabled", "heartbeats.topic.replication.factor",
  "checkpoints.topic.replication.factor", "refresh.topics.enabled", "refresh.topics.interval.seconds",
  "refresh.groups.enabled", "refresh.groups.interval.seconds", "consumer.poll.timeout.ms", "admin.timeout.ms",
  "use.incremental.alter.configs", "add.source.alias.to.metrics", "enabled",
  "bootstrap.servers", "security.protocol", "sasl.mechanism", "client.id", "group.id", "auto.offset.reset",
  "isolation.level", "acks", "compression.type",
]);

/** Client-config prefixes MM2 and Connect put before a Kafka client setting. */
const clientPrefix = /^(source\.cluster\.|target\.cluster\.|offset-syncs\.source\.|offset-syncs\.target\.)?(consumer\.override\.|producer\.override\.|admin\.override\.|consumer\.|producer\.|admin\.)?/;

/** A transform's or predicate's class (`transforms.<name>.type`) names code, not data. */
const pluginType = /^(transforms|predicates)\.[^.]+\.type$/;

const redactedValue = "[redacted]";

function isSafeKey(key: string): boolean {
  return safeKeys.has(key) || pluginType.test(key) || safeKeys.has(key.replace(clientPrefix, ""));
}

/** The config with every value whose key is not known to be safe replaced by "[redacted]". */
export function redactConnectorConfig(config: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(config).map(([key, value]) => [key, isSafeKey(key) ? value : redactedValue]));
}
