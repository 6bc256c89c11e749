import { closeSync, existsSync, openSync, readSync, statSync } from "node:fs";
import { shardOf } from "@/lib/collector/shards";

/** A collector process of the demo, with the log file its JSON log lines go to. */
export interface CollectorProcess {
  name: string;
  pid: number;
  logFile: string;
  hasExited: () => boolean;
}

/**
 * Which collector holds which shards, read from each collector's own log: the shard membership logs
 * `"shards assigned"` with the shards it holds after every change (lib/kafka/shard-membership.ts). Each call reads
 * only what was appended since the last one.
 */
export function createShardWatch(collectors: readonly CollectorProcess[], flows: readonly string[], shards: number) {
  const offsets = new Map<string, number>();
  const partial = new Map<string, string>();
  const held = new Map<string, readonly number[]>();
  const exited = new Set<string>();

  const readAppended = (file: string): string[] => {
    if (!existsSync(file)) return [];
    const size = statSync(file).size;
    const from = offsets.get(file) ?? 0;
    if (size <= from) return [];
    const buffer = Buffer.alloc(size - from);
    const fd = openSync(file, "r");
    try {
      readSync(fd, buffer, 0, buffer.length, from);
    } finally {
      closeSync(fd);
    }
    offsets.set(file, size);
    const lines = `${partial.get(file) ?? ""}${buffer.toString("utf8")}`.split("\n");
    partial.set(file, lines.pop() ?? "");
    return lines;
  };

  const describe = (): string[] => {
    if (held.size === 0) return ["  no collector has reported shards yet (without shard wiring each collector polls every flow)"];
    return collectors.map((c) => {
      if (exited.has(c.name)) return `  ${c.name} (pid ${c.pid}): exited; its shards go to the others after the session timeout`;
      const mine = held.get(c.name);
      if (mine === undefined) return `  ${c.name} (pid ${c.pid}): no shards reported`;
      const polled = flows.filter((f) => mine.includes(shardOf(f, shards)));
      return `  ${c.name} (pid ${c.pid}): shards [${mine.join(", ")}] -> flows ${polled.length > 0 ? polled.join(", ") : "none"}`;
    });
  };

  return {
    /** Reads the new log lines; returns the holders when they changed since the last call, else null. */
    poll(): string[] | null {
      let changed = false;
      for (const c of collectors) {
        if (!exited.has(c.name) && c.hasExited()) {
          exited.add(c.name);
          changed = true;
        }
        for (const line of readAppended(c.logFile)) {
          if (!line.includes('"shards assigned"')) continue;
          const shardsHeld = (JSON.parse(line) as { shards?: number[] }).shards ?? [];
          held.set(c.name, shardsHeld);
          changed = true;
        }
      }
      return changed ? describe() : null;
    },
    describe,
  };
}
