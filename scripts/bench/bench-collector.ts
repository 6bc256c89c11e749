import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Collector } from "@/lib/collector/collector";
import { parseConfigText } from "@/lib/config";
import { createCollectingRuntime } from "@/lib/pipeline/runtime";
import type { SandboxState } from "@/lib/sandbox/state";

/** What phase 1 drives: a collector whose cycles run the server's whole pipeline, and what stops it all. */
export interface BenchRuntime {
  collector: Collector;
  stop(): Promise<void>;
}

/** The dashboard's settings against the sandbox, with an optional `store:` section. */
function writeBenchConfig(state: SandboxState, storeYaml = ""): string {
  const clusters = Object.entries(state.clusters).map(([alias, c]) => `  - alias: ${alias}\n    bootstrap: ${c.bootstrap}`).join("\n");
  return `clusters:\n${clusters}\nconnect:\n  - name: sandbox\n    url: ${state.connect.url}\npollIntervalSeconds: 5\nconfigRefreshCycles: 6\n${storeYaml}`;
}

/**
 * A collector of its own, in this process, against the sandbox (no store, no pipeline, no loop): capture-snapshot.ts
 * drives its cycles with runCycle() and reads its history.
 */
export function createBenchCollector(state: SandboxState): Collector {
  return new Collector(parseConfigText(writeBenchConfig(state), "<npm run bench>"), null);
}

/**
 * The server's runtime as role all's collector process builds it (createCollectingRuntime: collector, CyclePipeline
 * with translation, detectors, alert service, a fresh SQLite store, metrics, the published read model), in this
 * process and without its loop: each runCycle() is one whole cycle, poll through publishing (issue 12 item 7).
 */
export function createBenchRuntime(state: SandboxState): BenchRuntime {
  const dir = mkdtempSync(path.join(os.tmpdir(), "gapwatch-bench-store-"));
  const storeYaml = `store:\n  kind: sqlite\n  path: ${JSON.stringify(path.join(dir, "gapwatch.db"))}\n`;
  const runtime = createCollectingRuntime(parseConfigText(writeBenchConfig(state, storeYaml), "<npm run bench>"), "all", { publish: true });
  return {
    collector: runtime.collector,
    stop: async () => {
      await runtime.collector.stop();
      runtime.alerts.stop();
      await runtime.store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
