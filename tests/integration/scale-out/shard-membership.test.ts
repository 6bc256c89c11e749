import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createShardMembership, type ShardMembership } from "@/lib/kafka/shard-membership";
import { readSandboxState } from "@/lib/sandbox/state";

/**
 * Collectors share shards through Kafka's group protocol on the real sandbox: three members (one in a child
 * process) split 12 shards exactly; when the child is killed with SIGKILL (no LeaveGroup) its shards move to the
 * two others once the coordinator expires its 6 s session.
 */
const home = readSandboxState().clusters.east!.bootstrap;
const topic = `__gapwatch_shards_${randomUUID().slice(0, 8)}`;
const groupId = `gapwatch-collectors-${randomUUID().slice(0, 8)}`;
const SHARDS = 12;
const SESSION_MS = 6000;
const allShards = Array.from({ length: SHARDS }, (_, i) => i);

const members: ShardMembership[] = [];
let child: ChildProcess | null = null;
let childShards: number[] = [];

function join(): ShardMembership {
  const m = createShardMembership({ connection: { alias: "east", bootstrap: [home] }, topic, shards: SHARDS, groupId, sessionTimeoutMs: SESSION_MS, onChange: () => undefined });
  members.push(m);
  return m;
}

function startChild(): ChildProcess {
  // Node itself with tsx as a loader (not the tsx CLI, which runs the script in a grandchild the kill would miss).
  const script = path.resolve("tests/integration/scale-out/shard-member-child.ts");
  const proc = spawn(process.execPath, ["--import", "tsx", script, home, topic, groupId], { stdio: ["ignore", "pipe", "pipe"] });
  let buffered = "";
  proc.stdout!.on("data", (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split("\n");
    buffered = lines.pop() ?? "";
    for (const line of lines) if (line.startsWith("{")) childShards = (JSON.parse(line) as { shards: number[] }).shards;
  });
  return proc;
}

/** Polls until `check` holds (returns the time it took) or fails with what was seen last. */
async function waitFor(check: () => boolean, timeoutMs: number, what: () => string): Promise<number> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs) throw new Error(`not reached within ${timeoutMs} ms: ${what()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return Date.now() - started;
}

/** True when the holdings are non-empty, pairwise disjoint and together exactly all shards. */
function splitsExactly(holdings: readonly (readonly number[])[]): boolean {
  const flat = holdings.flat();
  return holdings.every((h) => h.length > 0) && flat.length === SHARDS && [...flat].sort((a, b) => a - b).every((s, i) => s === allShards[i]);
}

afterAll(async () => {
  if (child && child.exitCode === null) child.kill("SIGKILL");
  await Promise.all(members.map((m) => m.stop()));
});

describe("shard membership on the real sandbox", () => {
  it("splits 12 shards over three members and hands a killed member's shards over within the session timeout", async () => {
    const [a, b] = [join(), join()];
    await a.start();
    await b.start();
    child = startChild();
    const holdings = () => [a.owned(), b.owned(), childShards];
    await waitFor(() => splitsExactly(holdings()), 45_000, () => JSON.stringify(holdings()));
    // Round-robin over three members: 4 shards each.
    expect(holdings().map((h) => h.length)).toEqual([4, 4, 4]);

    const killedAt = Date.now();
    child.kill("SIGKILL");
    const handoverMs = await waitFor(() => splitsExactly([a.owned(), b.owned()]), SESSION_MS + 10_000, () => JSON.stringify([a.owned(), b.owned()]));
    expect([...a.owned(), ...b.owned()].sort((x, y) => x - y)).toEqual(allShards);
    expect(a.owned().length + b.owned().length).toBe(12);
    // The coordinator expires the session 6 s after the last heartbeat (at most one 2 s heartbeat interval before the
    // kill); the survivors rejoin at their next heartbeat, 2 s later at most.
    expect(handoverMs).toBeGreaterThanOrEqual(SESSION_MS - 2000 - 500);
    expect(Date.now() - killedAt).toBeLessThanOrEqual(SESSION_MS + 8000);
  }, 80_000);

  it("refuses to start on an existing shard topic with another partition count", async () => {
    const other = createShardMembership({ connection: { alias: "east", bootstrap: [home] }, topic, shards: 5, groupId: `${groupId}-x`, sessionTimeoutMs: SESSION_MS, onChange: () => undefined });
    await expect(other.start()).rejects.toThrow(`scaleOut: topic "${topic}" has 12 partitions but scaleOut.shards is 5; shards are fixed once created`);
    await other.stop();
  });
});
