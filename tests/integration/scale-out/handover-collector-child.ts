/**
 * One sharing collector (GAPWATCH_ROLE=collector with scaleOut) in a process of its own, started as the server starts
 * it (createCollectingRuntime + startCollecting), so that the handover test can kill it with SIGKILL. After every
 * cycle it prints one line `HANDOVER {…}`: the cycle's start, the shards it held, the flows it polled and the
 * DATA_LOSS alerts it holds. Argument: the config file. SIGTERM stops it cleanly (leaves the group, closes the store).
 */
import { loadConfigFile } from "@/lib/config";
import { createCollectingRuntime, startCollecting } from "@/lib/pipeline/runtime";

const [configFile = ""] = process.argv.slice(2);
const runtime = createCollectingRuntime(loadConfigFile(configFile), "collector");
runtime.collector.onCycle((snapshot) => {
  const alerts = runtime.alerts.list({ type: "DATA_LOSS" }).map((a) => ({ id: a.id, state: a.state, topic: a.topic, evidence: a.evidence }));
  const line = { pid: process.pid, cycle: snapshot.cycle, takenAt: snapshot.takenAt, shards: runtime.sharding?.assignment.held() ?? [], flows: snapshot.flows.map((f) => f.id), alerts };
  process.stdout.write(`HANDOVER ${JSON.stringify(line)}\n`);
});
const stop = startCollecting(runtime);
process.once("SIGTERM", () => {
  void stop()
    .then(() => runtime.store.close())
    .finally(() => process.exit(0));
});
