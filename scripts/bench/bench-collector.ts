import { Collector } from "@/lib/collector/collector";
import { parseConfigText } from "@/lib/config";
import type { SandboxState } from "@/lib/sandbox/state";

/**
 * A collector of its own, in this process, against the sandbox (no store, no loop): the benchmark
 * drives its cycles with runCycle() and reads its request counts. Same settings as the dashboard.
 */
export function createBenchCollector(state: SandboxState): Collector {
  const clusters = Object.entries(state.clusters).map(([alias, c]) => `  - alias: ${alias}\n    bootstrap: ${c.bootstrap}`).join("\n");
  const text = `clusters:\n${clusters}\nconnect:\n  - name: sandbox\n    url: ${state.connect.url}\npollIntervalSeconds: 5\nconfigRefreshCycles: 6\n`;
  return new Collector(parseConfigText(text, "<npm run bench>"), null);
}
