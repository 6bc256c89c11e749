import { ledgerKey, type Flow, type FlowPartition, type LedgerSegment, type Snapshot, type TransactionLedgerView } from "@/lib/collector/types";
import { formatCount, formatRange, isFlowFresh, minOffset, type DetectorContext } from "./snapshot-views";
import { FindingType, Severity, type Finding } from "./types";

/**
 * ABORTED_RECORDS_COPIED (warning, per flow and source topic) — MM2's source consumer reads
 * uncommitted unless its config says otherwise, so records of aborted transactions are copied to
 * the target as ordinary records that every consumer of the remote topic reads (KAFKA-14021).
 *
 * Isolation level: MM2 never sets one itself. MirrorConnectorConfig.sourceConsumerConfig
 * (connect/mirror/src/main/java/org/apache/kafka/connect/mirror/MirrorConnectorConfig.java) builds
 * the replication consumer's config from the connector's `consumer.*` then `source.consumer.*`
 * keys (the later wins; `source.cluster.*` keeps client/security keys only), and
 * MirrorSourceTask.start uses it as is (`config.sourceConsumerConfig("replication-consumer")`).
 * Exactly-once mode does not change it: MirrorSourceConnector.exactlyOnceSupport only *requires*
 * `isolation.level=read_committed` for `exactly.once.support=required` (and validation fails
 * without it). So the rule reads the isolation level from the connector's config: read_committed
 * (every exactly-once MM2, and anyone who set it) → aborted records are not copied, and the rule is
 * quiet; read_uncommitted or unset (Kafka's default) → they are.
 *
 * LOGIC — per fresh flow and source topic; a topic with a partition unknown this cycle is not
 * judged (its last finding is carried); per partition with a transaction ledger, a known MM2
 * position, and a source connector whose config Connect reported (dedicated-mode MM2's config is
 * not visible: not judged):
 * - copied = the ledger's aborted records below min(MM2's position, ledger cursor): MM2 read and
 *   wrote every offset below its position, and below the cursor the ledger knows which were
 *   aborted (above it a transaction may still be open or not read yet: `ledgerBehind`);
 * - a merged range straddling that bound counts its part below it when dense, else not yet.
 * Fires while the sum over the topic's partitions is > 0.
 *
 * Condition, not event: what matters is that the target *holds* aborted records consumers will
 * read, which stays true after MM2 copied them and grows with each aborted transaction MM2 copies;
 * a count that only grows fits one finding whose summary updates, not a new event per transaction.
 * It resolves when the ledger forgets those ranges: once the source log start passed them
 * (retention or DeleteRecords). MM2 copies `retention.ms` / `retention.bytes` to the remote topic
 * (`sync.topic.configs.enabled`, default true), so the target's copies expire around then; an
 * operator who cleaned the target sooner acknowledges the alert.
 * Key: `ABORTED_RECORDS_COPIED|<flow>|<topic>`.
 */
export function detectAbortedRecordsCopied(ctx: DetectorContext): Finding[] {
  const findings: Finding[] = [];
  const ledgers = ctx.current.transactionLedgers;
  if (ledgers === undefined) return findings;
  // Only topics with a ledger can count anything (ledgers exist where markers were seen: few).
  const ledgerTopics = new Set(Object.values(ledgers).map((l) => `${l.cluster}|${l.topic}`));
  if (ledgerTopics.size === 0) return findings;
  for (const flow of ctx.current.flows) {
    if (!isFlowFresh(ctx.current, flow)) continue;
    for (const [topic, partitions] of groupByTopic(flow.partitions.filter((p) => ledgerTopics.has(`${flow.source}|${p.topic}`)))) {
      if (partitions.some((p) => p.unknown !== null)) continue;
      const counted = partitions.flatMap((p) => {
        const ledger = ledgers[ledgerKey(flow.source, topic, p.partition)];
        if (ledger === undefined || p.mm2Position === null || !readsUncommitted(ctx.current, p.sourceConnector)) return [];
        return [{ partition: p.partition, ...countAbortedBelow(ledger, p.mm2Position) }];
      });
      const total = counted.reduce((sum, c) => sum + c.records, 0n);
      if (total > 0n) findings.push(createFinding(flow, topic, partitions[0]!.targetTopic, counted, total, ctx.now));
    }
  }
  return findings;
}

/** The aborted records of a ledger that MM2's position passed. */
export interface AbortedBelow {
  records: bigint;
  ranges: { first: bigint; last: bigint }[];
  /** MM2 passed offsets the ledger has not classified yet. */
  behind: boolean;
}

/** What one partition contributes. */
interface PartitionCount extends AbortedBelow {
  partition: number;
}

function groupByTopic(partitions: readonly FlowPartition[]): Map<string, FlowPartition[]> {
  const byTopic = new Map<string, FlowPartition[]>();
  for (const p of partitions) {
    const list = byTopic.get(p.topic);
    if (list === undefined) byTopic.set(p.topic, [p]);
    else list.push(p);
  }
  return byTopic;
}

/**
 * True when the replication consumer of `connectorName` reads uncommitted: `source.consumer.isolation.level`,
 * else `consumer.isolation.level`, else Kafka's default (read_uncommitted). The consumer parses the
 * value case-insensitively (ConsumerConfig). False when the connector's config is not known.
 */
function readsUncommitted(snapshot: Snapshot, connectorName: string | null): boolean {
  if (connectorName === null) return false;
  const connector = snapshot.connect.flatMap((c) => (c.reachable ? c.connectors : [])).find((c) => c.name === connectorName);
  if (connector === undefined) return false;
  const level = connector.config["source.consumer.isolation.level"] ?? connector.config["consumer.isolation.level"] ?? "read_uncommitted";
  return level.trim().toLowerCase() !== "read_committed";
}

/** The ledger's aborted records below min(MM2's position, its cursor): what MM2 copied when it reads uncommitted. */
export function countAbortedBelow(ledger: TransactionLedgerView, position: bigint): AbortedBelow {
  const bound = minOffset(position, ledger.cursor);
  const ranges: { first: bigint; last: bigint }[] = [];
  let records = 0n;
  for (const s of ledger.aborted) {
    const part = clipBelow(s, bound);
    if (part === null) continue;
    records += part.records;
    ranges.push({ first: part.first, last: part.last });
  }
  return { records, ranges, behind: ledger.cursor < position };
}

/** The part of an aborted range below `bound`, when its records there are known. */
function clipBelow(s: LedgerSegment, bound: bigint): LedgerSegment | null {
  if (s.first >= bound) return null;
  if (s.last < bound) return s;
  const dense = s.records === s.last - s.first + 1n;
  return dense ? { ...s, last: bound - 1n, records: bound - s.first } : null;
}

function createFinding(flow: Flow, topic: string, targetTopic: string, counted: readonly PartitionCount[], total: bigint, now: number): Finding {
  const withRecords = counted.filter((c) => c.records > 0n);
  const offsets = withRecords.map((c) => `${c.partition}: ${c.ranges.map((r) => formatRange(r.first, r.last)).join(", ")}`).join("; ");
  return {
    key: `${FindingType.ABORTED_RECORDS_COPIED}|${flow.id}|${topic}`,
    type: FindingType.ABORTED_RECORDS_COPIED,
    severity: Severity.WARNING,
    flow: flow.id,
    cluster: flow.target,
    topic,
    summary:
      `MM2 copied ${formatCount(total)} ${total === 1n ? "record" : "records"} of aborted transactions from ${topic} to ${flow.target} ` +
      `(source offsets ${offsets}): every consumer of ${targetTopic} reads them as ordinary records (KAFKA-14021)`,
    evidence: {
      abortedRecordsCopied: total.toString(),
      partitions: withRecords.map((c) => c.partition).join(","),
      sourceOffsets: offsets,
      targetTopic,
      ledgerBehind: counted.some((c) => c.behind),
    },
    observedAt: now,
  };
}
