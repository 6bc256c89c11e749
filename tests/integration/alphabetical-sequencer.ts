import path from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * Seconds each file took in the clean-clone CI run ci24b of 2026-12-07 (4d1c843: three shards, each beside the
 * soak, the build, e2e and the image on this 2-core machine). `npm test` splits the files into shards of about equal
 * time, each on its own sandbox; a file not listed counts as a minute. Refresh the table from a CI run's per-file
 * times (vitest's report per shard) when files are added or change their length.
 */
const measuredSeconds: Record<string, number> = {
  "acls/least-privilege": 132,
  "audit/content-audit": 38,
  "auth/oauthbearer": 64,
  "clean-run/no-false-positives": 93,
  "collector/flow-model": 44,
  "dedicated-mode/dedicated": 144,
  "faults/connect-without-rest": 118,
  "faults/detection": 167,
  "hardening/crash-restart": 46,
  "hardening/kill-before-send": 20,
  "kafka/cluster-reader": 68,
  "kafka/cluster-reader-failures": 21,
  "kafka/group-types": 44,
  "lookalikes/exactly-once": 57,
  "lookalikes/groups": 89,
  "lookalikes/identity-replication": 82,
  "lookalikes/topology": 99,
  "lookalikes/topology-partitions": 108,
  "production/aborted-transactions": 44,
  "production/compact-delete": 54,
  "production/connector-missing": 17,
  "production/coverage-drift": 9,
  "production/offset-syncs-off": 67,
  "production/operator-actions": 99,
  "production/readiness-reasons": 24,
  "production/replicate-from-latest": 70,
  "production/reset-latest": 47,
  "production/second-writer": 23,
  "production/split-connectors": 73,
  "production/split-flow": 67,
  "production/topic-filter": 36,
  "production/transactions": 74,
  "real-clusters/broker-loss": 112,
  "real-clusters/hostile-records": 95,
  "real-clusters/unclean-election": 116,
  "receivers/alertmanager": 102,
  "receivers/prometheus": 6,
  "sandbox/replication": 27,
  "sandbox/scenarios": 57,
  "scale-out/handover": 89,
  "scale-out/roles": 18,
  "scale-out/shard-membership": 12,
  "security/init-java-stores": 2,
  "security/tls-transport": 31,
  "translation/translation": 142,
  "worker-restarts/crash-and-offsets": 112,
  "worker-restarts/stuck-task": 105,
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
 * About how long a shard's sandbox takes to start after the previous shard's (ci24c, 2026-12-07: shards' sandboxes up
 * 26 and 75 s after the stage's start). `npm test` starts the shards' sandboxes one after the other (scripts/integration-shards.ts), so shard
 * i's first file starts about i of these later than shard 0's: the split counts that wait as time already spent.
 */
const sandboxStartSeconds = 25;

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
