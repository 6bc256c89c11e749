import { applyConnectorConfigRecord, decodeAll, decodeConnectorConfig, nameDedicatedModeTopics } from "@/lib/mm2";
import { type DedicatedConfigs, formatFlowId } from "./flow-discovery";
import { tail, type TailContext } from "./flow-readings";
import { countMalformed } from "./malformed-records";
import type { ClusterSnapshot } from "./types";

/**
 * Dedicated mode: for every cluster holding `mm2-offsets.<source>.internal` of another configured
 * alias (a herder `<source> -> <cluster>` ran there), folds what is new in its config topic
 * `mm2-configs.<source>.internal` (every partition; Connect creates it with one) into that pair's
 * connector configs (lib/mm2/connect-config-records.ts). Flow discovery gets the configs as of the
 * newest cycle that read every partition to the log end it saw — a first read cut short must not
 * pass for "no MirrorSourceConnector" — and this cycle's error, if any; `connectors` stays null until
 * one read was complete (the target unreachable, a fetch failed). A config topic that the target's
 * fresh metadata does not list holds no config: a starting herder creates its offsets, status and
 * config topics in that order (Worker, then DistributedHerder.startServices) before its leader puts
 * any connector config, so until then MM2 copies nothing and the pair is no flow.
 */
export async function readDedicatedConfigs(clusters: readonly ClusterSnapshot[], ctx: TailContext): Promise<Map<string, DedicatedConfigs>> {
  const aliases = clusters.map((c) => c.alias);
  const pairs = clusters.flatMap((target) =>
    aliases
      .filter((source) => source !== target.alias && target.topics.some((t) => t.name === nameDedicatedModeTopics(source).offsets))
      .map((source) => ({ source, target })),
  );
  const read = await Promise.all(pairs.map(async ({ source, target }) => [formatFlowId(source, target.alias), await readPair(source, target, ctx)] as const));
  return new Map(read);
}

async function readPair(source: string, target: ClusterSnapshot, ctx: TailContext): Promise<DedicatedConfigs> {
  const id = formatFlowId(source, target.alias);
  const topic = nameDedicatedModeTopics(source).configs;
  const held = ctx.state.configTables.get(id) ?? { table: new Map<string, Record<string, string>>(), complete: null };
  ctx.state.configTables.set(id, held);
  const partitions = target.topics.find((t) => t.name === topic)?.partitions ?? [];
  const errors: string[] = [];
  const fresh = target.reachable && !target.stale;
  if (!fresh) errors.push(`${target.alias} was not read this cycle`);
  else if (partitions.length === 0) held.table.clear();
  for (const p of partitions) {
    const records = await tail(ctx, target.alias, topic, p.partition, errors);
    const decoded = decodeAll(records, decodeConnectorConfig);
    countMalformed(ctx, { cluster: target.alias, topic, partition: p.partition }, records, decoded);
    for (const record of decoded.decoded) applyConnectorConfigRecord(held.table, record);
    const next = ctx.state.tails.get(`${target.alias}/${topic}/${p.partition}`)?.next ?? null;
    if (p.logEnd === null || next === null || next < p.logEnd) errors.push(`partition ${p.partition} not read to its end`);
  }
  if (errors.length === 0) held.complete = new Map(held.table);
  const error = errors.length > 0 ? `MM2 connector configs from ${target.alias}/${topic}: ${[...new Set(errors)].join("; ")}` : null;
  return { topic, connectors: held.complete, error };
}
