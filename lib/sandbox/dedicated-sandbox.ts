import { rmSync } from "node:fs";
import { getLogger } from "@/lib/logger";
import { startDedicatedMm2 } from "./dedicated-mm2";
import { startCluster, type SandboxCluster } from "./kraft-cluster";
import { sandboxDir, stateFile } from "./paths";
import { stopProcess, stopStaleProcesses } from "./processes";
import { prepareSandbox } from "./sandbox";
import { type DedicatedSandboxState, writeSandboxState } from "./state";
import { ensureTopics, workloadTopics } from "./topics";

const log = getLogger("sandbox.dedicated");

/** Pidfile name of the sandbox's MirrorMaker JVM. */
const mm2Name = "mm2-dedicated";

/**
 * Starts the sandbox with MM2 in dedicated mode (`sandbox up --mm2 dedicated`): two single-node
 * KRaft clusters, the workload topics on the first, and one `org.apache.kafka.connect.mirror.MirrorMaker`
 * JVM running `<source> -> <target>` with MM2's default topic filter (dedicated-mm2.ts). No Kafka
 * Connect worker: a dedicated deployment has no Connect REST API, so Gapwatch must find the flow, its
 * positions, configs and task states in MM2's internal topics alone — an idle worker would cost a
 * JVM on 2 cores and offer a URL that has nothing to do with MM2. Everything runs in the background,
 * tracked by pidfiles (`sandbox down` stops it by PID); on a failed start it is stopped at once.
 */
export async function startDedicatedSandbox(opts: { aliases?: [string, string] } = {}): Promise<DedicatedSandboxState> {
  const [sourceAlias, targetAlias] = opts.aliases ?? ["east", "west"];
  const { kafkaVersion, jars, classpath, logOption } = await prepareSandbox();
  const clusters: SandboxCluster[] = [];
  let mm2Pid: number | null = null;
  const stopStarted = async () => {
    if (mm2Pid !== null) await stopProcess({ name: mm2Name, pid: mm2Pid }, 60_000);
    await Promise.all(clusters.map((c) => stopProcess(c.process)));
    await stopStaleProcesses();
    rmSync(stateFile, { force: true });
  };
  try {
    clusters.push(...(await Promise.all([sourceAlias, targetAlias].map((alias) => startCluster({ alias, baseDir: sandboxDir, classpath, logOption })))));
    const [source, target] = clusters as [SandboxCluster, SandboxCluster];
    await ensureTopics(source.bootstrap, workloadTopics);
    const mm2 = await startDedicatedMm2({
      name: mm2Name,
      baseDir: sandboxDir,
      classpath,
      logOption,
      flow: { source: { alias: sourceAlias, bootstrap: source.bootstrap }, target: { alias: targetAlias, bootstrap: target.bootstrap }, topics: ".*" },
    });
    mm2Pid = mm2.process.pid;
    const state: DedicatedSandboxState = {
      kafkaVersion,
      jars,
      clusters: Object.fromEntries(clusters.map((c) => [c.alias, { bootstrap: c.bootstrap }])),
      connect: null,
      mm2: { mode: "dedicated", flow: `${sourceAlias}->${targetAlias}`, name: mm2Name, pid: mm2.process.pid, configFile: mm2.configFile },
      dashboard: null,
      startedAt: new Date().toISOString(),
    };
    writeSandboxState(state);
    log.info({ clusters: state.clusters, mm2: state.mm2 }, "sandbox ready (dedicated-mode MM2)");
    return state;
  } catch (err) {
    await stopStarted();
    throw err;
  }
}
