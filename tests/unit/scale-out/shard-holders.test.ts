import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createShardWatch } from "@/scripts/scale-out/shard-holders";

const dir = mkdtempSync(path.join(os.tmpdir(), "gapwatch-shard-watch-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A JSON log line as lib/kafka/shard-membership.ts writes it through pino. */
const assigned = (shards: number[]) =>
  `${JSON.stringify({ level: 30, time: 1796198639351, module: "shards", group: "gapwatch-collectors", member: "m", shards, msg: "shards assigned" })}\n`;
const other = `${JSON.stringify({ level: 30, module: "runtime", role: "collector", msg: "started" })}\n`;

describe("shard holders read from the collectors' logs", () => {
  it("maps each collector's latest shards to the flows they hold, and reports only changes", () => {
    const gone = new Set<number>();
    const collectors = [1, 2, 3].map((n) => ({ name: `collector-${n}`, pid: 100 + n, logFile: path.join(dir, `c${n}.log`), hasExited: () => gone.has(n) }));
    for (const c of collectors) writeFileSync(c.logFile, other);
    // Kafka's hash of 10 shards: east->west is shard 9, south->west shard 4.
    const watch = createShardWatch(collectors, ["east->west", "south->west"], 10);
    expect(watch.poll()).toBeNull();
    expect(watch.describe()).toEqual(["  no collector has reported shards yet (without shard wiring each collector polls every flow)"]);

    appendFileSync(collectors[0]!.logFile, assigned([0, 3, 6, 9]));
    appendFileSync(collectors[1]!.logFile, `${assigned([1, 4, 7])}${other}`);
    // A line still being written is read once it is whole.
    const tail = assigned([2, 5, 8]);
    appendFileSync(collectors[2]!.logFile, tail.slice(0, 40));
    expect(watch.poll()).toEqual([
      "  collector-1 (pid 101): shards [0, 3, 6, 9] -> flows east->west",
      "  collector-2 (pid 102): shards [1, 4, 7] -> flows south->west",
      "  collector-3 (pid 103): no shards reported",
    ]);
    expect(watch.poll()).toBeNull();
    appendFileSync(collectors[2]!.logFile, tail.slice(40));
    expect(watch.poll()?.[2]).toBe("  collector-3 (pid 103): shards [2, 5, 8] -> flows none");

    gone.add(1);
    expect(watch.poll()?.[0]).toBe("  collector-1 (pid 101): exited; its shards go to the others after the session timeout");
    // collector-1 is gone: a rebalance gives its shards to the others (each logs [] first, then its new shards).
    appendFileSync(collectors[1]!.logFile, `${assigned([])}${assigned([0, 2, 4, 6, 8])}`);
    appendFileSync(collectors[2]!.logFile, `${assigned([])}${assigned([1, 3, 5, 7, 9])}`);
    expect(watch.poll()).toEqual([
      "  collector-1 (pid 101): exited; its shards go to the others after the session timeout",
      "  collector-2 (pid 102): shards [0, 2, 4, 6, 8] -> flows south->west",
      "  collector-3 (pid 103): shards [1, 3, 5, 7, 9] -> flows east->west",
    ]);
  });
});
