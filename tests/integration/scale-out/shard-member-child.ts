/**
 * One collector's shard membership in a process of its own, so that the test can kill it with SIGKILL (a crash: no
 * LeaveGroup is sent). Prints `{"shards":[...]}` on every change. Arguments: bootstrap, topic, group id.
 */
import { createShardMembership } from "@/lib/kafka/shard-membership";

const [bootstrap = "", topic = "", groupId = ""] = process.argv.slice(2);
const membership = createShardMembership({
  connection: { alias: "home", bootstrap: [bootstrap] },
  topic,
  shards: 12,
  groupId,
  sessionTimeoutMs: 6000,
  onChange: (shards) => process.stdout.write(`${JSON.stringify({ shards })}\n`),
});
membership.start().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
