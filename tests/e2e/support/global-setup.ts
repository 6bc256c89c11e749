import { startTopicsOnlyApp, topicsOnlyUrlVariable } from "./topics-only-app";

/**
 * Starts the second dashboard (Connect read from internal topics, short event hold) once for the run; its URL
 * reaches the specs through the environment. Returns the teardown that stops it by PID.
 */
export default async function setUpE2e(): Promise<() => Promise<void>> {
  const app = await startTopicsOnlyApp();
  process.env[topicsOnlyUrlVariable] = app.url;
  process.stdout.write(`[e2e] topics-only dashboard at ${app.url}\n`);
  return () => app.stop();
}
