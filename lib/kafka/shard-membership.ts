import { Admin, Consumer, type ConsumerGroupJoinPayload, type GroupAssignment } from "@platformatic/kafka";
import { ConfigError } from "@/lib/errors";
import { getLogger } from "@/lib/logger";
import { resolveConnection, toClientOptions } from "./options";
import type { KafkaClusterConnection } from "./types";

const log = getLogger("shards");

/** How a collector joins the collectors' group (config `scaleOut`, with the home cluster's connection). */
export interface ShardMembershipOptions {
  connection: KafkaClusterConnection;
  topic: string;
  shards: number;
  groupId: string;
  sessionTimeoutMs: number;
  /** Called with the shards held after every change (ascending; empty while none is held). */
  onChange: (shards: readonly number[]) => void;
}

/** One collector's membership of the collectors' group. */
export interface ShardMembership {
  /** Creates the shard topic if missing (or refuses one with another partition count), then joins the group. */
  start(): Promise<void>;
  /** The shards held now, ascending. */
  owned(): readonly number[];
  /** Leaves the group (its shards move to the others at once, not after a session timeout) and closes. */
  stop(): Promise<void>;
}

/**
 * Shards through Kafka's classic consumer group protocol, as Kafka Connect shares its tasks: the shard topic's
 * partitions are the shards, the group's round-robin assignment says who holds which. The member never fetches:
 * platformatic's Consumer heartbeats on its own timer and rejoins when the coordinator answers
 * REBALANCE_IN_PROGRESS. On a rebalance every shard is given up before rejoining (the EAGER protocol's
 * onJoinPrepare in Kafka's ConsumerCoordinator), so two collectors never hold one shard at once; and when no
 * heartbeat succeeded for a session timeout (the home cluster unreachable), the shards are given up too: the
 * coordinator may already have given them to another member.
 */
export function createShardMembership(options: ShardMembershipOptions): ShardMembership {
  const conn = resolveConnection(options.connection);
  const context = Object.freeze({ gapwatchShards: conn.alias });
  const clientOptions = { ...toClientOptions(conn, context), clientId: `${conn.clientId}-collector` };
  const heartbeatMs = Math.min(3000, Math.floor(options.sessionTimeoutMs / 3));
  const consumer = new Consumer({
    ...clientOptions,
    groupId: options.groupId,
    sessionTimeout: options.sessionTimeoutMs,
    rebalanceTimeout: options.sessionTimeoutMs,
    heartbeatInterval: heartbeatMs,
    // The group calls (join, sync, heartbeat) retry on their own; the member never gives up rejoining.
    retries: Number.MAX_SAFE_INTEGER,
    retryDelay: heartbeatMs,
  });
  let owned: number[] = [];
  let lastHeartbeatAt = Date.now();
  let watchdog: NodeJS.Timeout | null = null;
  // Given up by the watchdog while the member may still be in the group: a heartbeat that succeeds again
  // (no rejoin, so no join event) takes the assignment back.
  let released = false;
  const assigned = (assignments: readonly GroupAssignment[] | null | undefined) => [...(assignments?.find((a) => a.topic === options.topic)?.partitions ?? [])];

  const hold = (shards: number[]) => {
    const next = [...shards].sort((a, b) => a - b);
    if (next.length === owned.length && next.every((s, i) => s === owned[i])) return;
    owned = next;
    log.info({ group: options.groupId, member: consumer.memberId, shards: owned }, "shards assigned");
    options.onChange(owned);
  };

  consumer.on("consumer:group:join", (payload: ConsumerGroupJoinPayload) => {
    lastHeartbeatAt = Date.now();
    released = false;
    hold(assigned(payload.assignments));
  });
  consumer.on("consumer:group:rebalance", () => hold([]));
  consumer.on("consumer:heartbeat:end", () => {
    lastHeartbeatAt = Date.now();
    if (!released) return;
    released = false;
    hold(assigned(consumer.assignments));
  });
  consumer.on("consumer:heartbeat:error", ({ error }) => log.warn({ group: options.groupId, err: error.message }, "shard group heartbeat failed"));

  return {
    async start() {
      await ensureShardTopic(clientOptions, options.topic, options.shards);
      consumer.topics.trackAll(options.topic);
      await consumer.joinGroup({});
      watchdog = setInterval(() => {
        if (owned.length > 0 && Date.now() - lastHeartbeatAt > options.sessionTimeoutMs) {
          log.error({ group: options.groupId, sessionTimeoutMs: options.sessionTimeoutMs }, "no heartbeat for a session timeout: giving up every shard");
          released = true;
          hold([]);
        }
      }, heartbeatMs);
    },
    owned: () => owned,
    async stop() {
      if (watchdog) clearInterval(watchdog);
      hold([]);
      await new Promise<void>((resolve) =>
        consumer.leaveGroup(false, (err) => {
          if (err) log.warn({ err: err.message }, "leaving the shard group failed");
          resolve();
        }),
      );
      await consumer.close(true);
    },
  };
}

/** Creates the shard topic with `shards` partitions unless it exists; an existing one must have exactly that many. */
async function ensureShardTopic(clientOptions: ConstructorParameters<typeof Admin>[0], topic: string, shards: number): Promise<void> {
  const admin = new Admin(clientOptions);
  try {
    if (!(await admin.listTopics()).includes(topic)) {
      // Two collectors starting at once both try: the loser's TOPIC_ALREADY_EXISTS is checked below like any topic.
      await admin.createTopics({ topics: [topic], partitions: shards }).catch((err: unknown) => {
        if (!(err instanceof Error) || !String(err.message + JSON.stringify(err)).includes("TOPIC_ALREADY_EXISTS")) throw err;
      });
    }
    const count = await readPartitionCount(admin, topic);
    if (count !== shards) {
      throw new ConfigError(`scaleOut: topic "${topic}" has ${count ?? "no"} partitions but scaleOut.shards is ${shards}; shards are fixed once created`);
    }
  } finally {
    await admin.close();
  }
}

/** The topic's partition count; a topic just created may take a moment to reach every broker's metadata. */
async function readPartitionCount(admin: Admin, topic: string): Promise<number | undefined> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      return (await admin.metadata({ topics: [topic] })).topics.get(topic)?.partitionsCount;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}
