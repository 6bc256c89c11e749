import { z } from "zod";

/**
 * Scale-out (issue 13): collectors join one consumer group on `homeCluster` (an alias from `clusters`), subscribed
 * to `topic`, whose `shards` partitions are the shards; each flow hashes to one shard and only the collector
 * assigned it polls and notifies for it. Absent: this one process owns everything.
 */
export const scaleOutSchema = z.object({
  homeCluster: z.string().min(1, "name the cluster (an alias from clusters) that holds the collectors' group"),
  shards: z.number().int().min(1).max(1000).default(12),
  groupId: z.string().min(1).default("gapwatch-collectors"),
  topic: z.string().regex(/^[A-Za-z0-9._-]{1,249}$/, "must be a valid Kafka topic name").default("__gapwatch_shards"),
  /** The group's session timeout: a collector that stops heartbeating loses its shards after this long. */
  sessionTimeoutMs: z.number().int().min(6000).max(300_000).default(30_000),
}).strict();

export type ScaleOutConfig = z.infer<typeof scaleOutSchema>;
