import path from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * Seconds each file took in the clean-clone CI run of 2026-12-02 (1321444, integration stage beside the soak and the
 * build); files added since, as measured on a loaded machine. `npm test` splits the files into two
 * shards of about equal time, each on its own sandbox; a file not listed counts as a minute. Kept from the quiet
 * machine on purpose: a two-shard pass at load 20–24 (2026-12-02) ran files 1.0× (fixed-length clean runs) to 3.4×
 * (kafka/cluster-reader) longer, which would unbalance the split CI sees.
 */
const measuredSeconds: Record<string, number> = {
  // Measured on a loaded machine (2026-12-06, h64): 165 s of tests, its own two authorizer clusters included.
  "acls/least-privilege": 170,
  // Measured on a loaded machine (2026-12-06): h62 57-66 s, h63 140-170 s, h68 (+45-60 s to unclean-election),
  // h69 (connector-missing, stuck-task, +30 s to operator-actions), h70 (offset-syncs-off, reset-latest).
  "audit/content-audit": 78,
  "auth/oauthbearer": 65,
  "clean-run/no-false-positives": 97,
  "collector/flow-model": 30,
  "dedicated-mode/dedicated": 65,
  "faults/connect-without-rest": 150,
  "faults/detection": 107,
  "hardening/crash-restart": 100,
  "hardening/kill-before-send": 32,
  "kafka/cluster-reader-failures": 26,
  "kafka/cluster-reader": 51,
  "kafka/group-types": 39,
  // Measured on a loaded machine (2026-12-06): exactly-once 32-132 s with its two worker restarts, groups 84 s.
  "lookalikes/exactly-once": 90,
  "lookalikes/groups": 84,
  // Measured on a loaded machine (2026-12-06, h75, load 10-20): 81-129 s for the file in three runs.
  "lookalikes/identity-replication": 105,
  // Measured on a loaded machine (2026-12-06, h73, three runs): 95-106 s and 116-133 s of tests, each file with its own
  // MirrorSourceConnector.
  "lookalikes/topology": 110,
  "lookalikes/topology-partitions": 135,
  "production/aborted-transactions": 31,
  // Measured on a loaded machine (2026-12-06, h76): 49-110 s over three runs, waiting for the log cleaner and flushes.
  "production/compact-delete": 90,
  "production/connector-missing": 30,
  "production/coverage-drift": 6,
  // Measured on a loaded machine (2026-12-06, h76): 58-60 s with the two purges with offset syncs off (+15-21 s).
  "production/offset-syncs-off": 62,
  "production/operator-actions": 95,
  "production/readiness-reasons": 60,
  "production/replicate-from-latest": 50,
  "production/reset-latest": 35,
  "production/second-writer": 24,
  // Measured on a loaded machine (2026-12-06, h77): 57-68 s, its one extra Connect worker's start included.
  "production/split-connectors": 70,
  "production/topic-filter": 35,
  "production/transactions": 70,
  "real-clusters/broker-loss": 110,
  "real-clusters/hostile-records": 60,
  "real-clusters/unclean-election": 105,
  "receivers/alertmanager": 89,
  "receivers/prometheus": 7,
  "sandbox/replication": 30,
  "sandbox/scenarios": 42,
  "scale-out/handover": 61,
  "scale-out/roles": 17,
  "scale-out/shard-membership": 21,
  "security/init-java-stores": 5,
  "security/tls-transport": 40,
  "translation/translation": 101,
  "worker-restarts/crash-and-offsets": 92,
  "worker-restarts/stuck-task": 120,
};
const unmeasuredSeconds = 60;

/**
 * Integration files of one shard share one sandbox and some change it for good (a purge leaves orders/2's target
 * behind its source forever; crash-and-offsets restarts the worker), so they run in a fixed, alphabetical order.
 * Sharding (`--shard i/n`) balances the measured times instead of hashing paths.
 */
export class AlphabeticalSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    return [...files].sort((a, b) => a.moduleId.localeCompare(b.moduleId));
  }

  override async shard(files: TestSpecification[]): Promise<TestSpecification[]> {
    const { index, count } = this.ctx.config.shard!;
    return splitByMeasuredTime(files, count)[index - 1] ?? [];
  }
}

/**
 * About how long a shard's sandbox takes to start (29 s for the clusters and Connect alone, plus vitest's own start;
 * 2026-12-07). `npm test` starts the shards' sandboxes one after the other (scripts/integration-shards.ts), so shard
 * i's first file starts about i of these later than shard 0's: the split counts that wait as time already spent.
 */
const sandboxStartSeconds = 40;

/** Longest file first into the least loaded shard (ties by name, so every shard process computes the same split). */
function splitByMeasuredTime(files: TestSpecification[], count: number): TestSpecification[][] {
  const seconds = (f: TestSpecification) => measuredSeconds[fileKey(f.moduleId)] ?? unmeasuredSeconds;
  const ordered = [...files].sort((a, b) => seconds(b) - seconds(a) || a.moduleId.localeCompare(b.moduleId));
  const shards = Array.from({ length: count }, (_, i) => ({ files: [] as TestSpecification[], seconds: i * sandboxStartSeconds }));
  for (const file of ordered) {
    const lightest = shards.reduce((min, s) => (s.seconds < min.seconds ? s : min));
    lightest.files.push(file);
    lightest.seconds += seconds(file);
  }
  return shards.map((s) => s.files);
}

/** `tests/integration/kafka/cluster-reader.test.ts` → `kafka/cluster-reader`. */
function fileKey(moduleId: string): string {
  const relative = moduleId.split(`${path.sep}tests${path.sep}integration${path.sep}`).pop() ?? moduleId;
  return relative.replace(/\.test\.ts$/, "").split(path.sep).join("/");
}
