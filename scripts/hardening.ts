// `npm run hardening`: the long hardening runs of issue 15 that CI runs only in short form.
//   --records N                 hostile records through every MM2 / Connect topic decoder (default 1,000,000;
//                               CI's unit suite runs 20,000: tests/unit/hardening/record-fuzz.test.ts)
//   --seed S                    the fuzz PRNG seed (default 15), so a failing run can be replayed exactly
//   --receiver-down-minutes M   a webhook target down for real for M minutes (default 10; 0 skips it;
//                               CI: tests/unit/alerts/notifiers/receiver-down.test.ts, injected clock)
//   --cycle-seconds C           one alert batch enqueued every C s meanwhile (default 4: 150 batches in
//                               10 minutes, past the queue's bound of 100)
//   --crash-kills K             SIGKILL the runtime mid-cycle K times against a sandbox (default 20; 0 skips;
//                               CI: tests/integration/hardening/crash-restart.test.ts, 3 kills)
//   --load-seconds S            S seconds of --load-clients C (default 60 s, 200) mixed, bad and slow HTTP clients
//                               on `next start` of the built app (needs `npm run build`; 0 skips; not in CI)
// The last two start a sandbox under GAPWATCH_HOME: run them through the sandbox slot script.
// Prints a JSON report; exits 1 on any crash, unaccounted or misread record, or a receiver-down run that
// lost a batch within the bound or let the queue grow past it.
import { parseFlags } from "./args";
import { fuzzedTopics, runRecordFuzz } from "./hardening/record-fuzz";
import { runReceiverDown } from "./hardening/receiver-down";
import { runSandboxPhases } from "./hardening/sandbox-phases";

async function main(): Promise<void> {
  const { flags } = parseFlags(process.argv.slice(2));
  const records = Number(flags.records ?? 1_000_000);
  const seed = Number(flags.seed ?? 15);
  const downMinutes = Number(flags["receiver-down-minutes"] ?? 10);
  const cycleSeconds = Number(flags["cycle-seconds"] ?? 4);
  const sandboxPhases = { crashKills: Number(flags["crash-kills"] ?? 20), loadClients: Number(flags["load-clients"] ?? 200), loadSeconds: Number(flags["load-seconds"] ?? 60) };
  if (![records, seed, ...Object.values(sandboxPhases)].every(Number.isSafeInteger) || records < 0 || !(downMinutes >= 0) || !(cycleSeconds > 0) || Object.values(sandboxPhases).some((n) => n < 0)) {
    throw new Error("usage: npm run hardening -- [--records N] [--seed S] [--receiver-down-minutes M] [--cycle-seconds C] [--crash-kills K] [--load-seconds S] [--load-clients C]");
  }
  let failed = false;
  if (records > 0) {
    process.stdout.write(`Fuzzing ${records} hostile records through the decoders of ${fuzzedTopics.join(", ")} (seed ${seed})…\n`);
    const started = performance.now();
    const report = runRecordFuzz(records, seed);
    const seconds = (performance.now() - started) / 1000;
    process.stdout.write(`${JSON.stringify({ fuzz: { ...report, seconds: Number(seconds.toFixed(1)), recordsPerSecond: Math.round(records / seconds) } }, null, 2)}\n`);
    const bad = report.crashes > 0 || report.unaccounted > 0 || report.misread > 0;
    process.stdout.write(bad ? "FUZZ FAILED: see crashes, unaccounted and misread above\n" : `fuzz OK: ${records} records, 0 crashes, every bad record counted and skipped\n`);
    failed ||= bad;
  }
  if (downMinutes > 0) {
    process.stdout.write(`A webhook target down for ${downMinutes} minutes, one batch every ${cycleSeconds} s…\n`);
    const report = await runReceiverDown(downMinutes, cycleSeconds, (line) => process.stdout.write(`${line}\n`));
    process.stdout.write(`${JSON.stringify({ receiverDown: report }, null, 2)}\n`);
    const bad = !report.deliveredInOrder || report.peakPending > 100 || report.delivered + report.dropped !== report.batchesEnqueued;
    process.stdout.write(bad ? "RECEIVER-DOWN FAILED: see the report above\n" : "receiver-down OK: bounded, everything in bound delivered in order, drops named in the log\n");
    failed ||= bad;
  }
  if (sandboxPhases.crashKills > 0 || sandboxPhases.loadSeconds > 0) {
    failed = (await runSandboxPhases(sandboxPhases, (line) => process.stdout.write(`${line}\n`))) || failed;
  }
  process.exitCode = failed ? 1 : 0;
}

await main();
