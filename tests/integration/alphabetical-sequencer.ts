import path from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * Seconds each file took in the clean-clone CI run of 2026-12-01 (7f67043, integration stage beside the soak and the
 * build). `npm test` splits the files into two shards of about equal time, each on its own sandbox; a file not listed
 * counts as a minute.
 */
const measuredSeconds: Record<string, number> = {
  "clean-run/no-false-positives": 96,
  "collector/flow-model": 37,
  "dedicated-mode/dedicated": 100,
  "faults/detection": 112,
  "kafka/cluster-reader-failures": 26,
  "kafka/cluster-reader": 54,
  "kafka/group-types": 38,
  "production/aborted-transactions": 31,
  "production/operator-actions": 43,
  "production/second-writer": 23,
  "production/topic-filter": 36,
  "production/transactions": 65,
  "real-clusters/broker-loss": 103,
  "real-clusters/unclean-election": 53,
  "sandbox/replication": 35,
  "sandbox/scenarios": 43,
  "translation/translation": 101,
  "worker-restarts/crash-and-offsets": 93,
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

/** Longest file first into the least loaded shard (ties by name, so every shard process computes the same split). */
function splitByMeasuredTime(files: TestSpecification[], count: number): TestSpecification[][] {
  const seconds = (f: TestSpecification) => measuredSeconds[fileKey(f.moduleId)] ?? unmeasuredSeconds;
  const ordered = [...files].sort((a, b) => seconds(b) - seconds(a) || a.moduleId.localeCompare(b.moduleId));
  const shards = Array.from({ length: count }, () => ({ files: [] as TestSpecification[], seconds: 0 }));
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
