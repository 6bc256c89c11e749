// The hardening phases that need real Kafka: one sandbox (started here under GAPWATCH_HOME, stopped by PID at the
// end) for the crash-restart and the HTTP load phases. Run `npm run hardening` through the slot script.
import { startSandbox } from "@/lib/sandbox/sandbox";
import { runCrashRestart } from "./crash-restart";
import { runHttpLoad } from "./http-load";

export interface SandboxPhaseOptions {
  crashKills: number;
  loadClients: number;
  loadSeconds: number;
}

/** Runs the phases asked for, prints their JSON reports and verdicts; returns true when one failed. */
export async function runSandboxPhases(opts: SandboxPhaseOptions, print: (line: string) => void): Promise<boolean> {
  print("Starting a sandbox for the crash-restart and HTTP load phases…");
  const sandbox = await startSandbox();
  let failed = false;
  try {
    if (opts.crashKills > 0) {
      print(`SIGKILL of the runtime mid-cycle, ${opts.crashKills} times…`);
      const report = await runCrashRestart(sandbox.state, opts.crashKills, print);
      print(JSON.stringify({ crashRestart: report }, null, 2));
      const bad = !report.allIntegrityOk || report.maxCyclesLost > 1 || report.lost.length > 0 || report.duplicated.length > 0;
      print(bad ? "CRASH-RESTART FAILED: see the report above" : `crash-restart OK: ${opts.crashKills} kills, integrity ok, at most one cycle lost, every transition notified once`);
      failed ||= bad;
    }
    if (opts.loadSeconds > 0) {
      const report = await runHttpLoad(sandbox.state, opts.loadClients, opts.loadSeconds, print);
      print(JSON.stringify({ httpLoad: report }, null, 2));
      const bad = report.status5xx > 0 || report.slowClients.answered5xx > 0 || report.processesLeft.length > 0;
      print(
        bad
          ? "HTTP-LOAD FAILED: 5xx answers or processes left running, above"
          : `http-load OK: ${report.requests} requests, no 5xx, peak RSS ${report.peakRssMiB.server} MiB server, ${report.peakRssMiB.collector} MiB collector process, ${report.peakRssMiB.total} MiB both, every server process stopped`,
      );
      failed ||= bad;
    }
  } finally {
    await sandbox.stop();
  }
  return failed;
}
