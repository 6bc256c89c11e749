// The server's runtime (collector, pipeline, alerts, SQLite store) in a process of its own, for the crash-restart
// phase (crash-restart.ts) to SIGKILL by PID. Prints one stdout line when a cycle starts and one when its samples,
// alerts and listeners are done, so the parent can kill mid-cycle and knows which cycles were complete.
// With GAPWATCH_KILL_AT_SEND=<url prefix>, the process SIGKILLs itself when it is about to POST to that URL — the
// first notification, after the cycle's store write and before the send: exactly the window the outbox closes.
import { getRuntime, startRuntime } from "@/lib/pipeline/runtime";

const killAtSend = process.env.GAPWATCH_KILL_AT_SEND;
if (killAtSend) {
  const send = globalThis.fetch;
  globalThis.fetch = (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    if (url.startsWith(killAtSend)) process.kill(process.pid, "SIGKILL");
    return send(input, init);
  };
}

const { collector } = getRuntime();
const runCycle = collector.runCycle.bind(collector);
// The loop calls this.runCycle(): wrapping the instance's method marks every cycle's start.
collector.runCycle = () => {
  process.stdout.write(`${JSON.stringify({ event: "start", at: Date.now() })}\n`);
  return runCycle();
};
// Listeners run in order: the pipeline's (samples, alerts) first, so this line means the cycle is stored.
collector.onCycle((snapshot) => {
  process.stdout.write(`${JSON.stringify({ event: "done", cycle: snapshot.cycle, takenAt: snapshot.takenAt })}\n`);
});
startRuntime();
