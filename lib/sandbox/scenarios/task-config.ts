// Making a changed source connector config really take effect before a scenario goes on, and keeping
// MM2's poll-failure warnings from flooding the worker log while it stalls on purpose (the soak and
// the reset-none scenario).
import { type ConnectEndpoint, restartTask } from "@/lib/connect";
import { requestConnect } from "@/lib/connect/client";
import { sleep } from "../processes";
import { allTasks, waitForConnector } from "./connector-control";

/**
 * After a PUT of a connector's config Connect keeps the old task RUNNING until the new task configs
 * are written and a rebalance restarts it — under load a minute later (soak: the task restarted with
 * `auto.offset.reset=none` only after the purge it was meant for, so MM2 had already skipped).
 * Waits until task 0's config (GET /connectors/{name}/tasks) shows `key` = `value` (absent: null),
 * then restarts the task, which starts from that config.
 */
export async function applyTaskConfig(endpoint: ConnectEndpoint, connector: string, key: string, value: string | null): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const tasks = await requestConnect<{ config: Record<string, string> }[]>(endpoint, "GET", `/connectors/${encodeURIComponent(connector)}/tasks`).catch(() => []);
    if (tasks.length > 0 && tasks.every((t) => (t.config[key] ?? null) === value)) break;
    if (Date.now() > deadline) throw new Error(`task config of ${connector} still lacks ${key}=${value} after 120 s`);
    await sleep(1000);
  }
  await restartTask(endpoint, connector, 0);
  await sleep(2000);
  await waitForConnector(endpoint, connector, allTasks("RUNNING"), "RUNNING", 90_000);
}

/**
 * With `auto.offset.reset=none` MirrorSourceTask.poll logs "Failure during poll." with a stack trace
 * on every poll — about 1 GB a minute in the soak's worker log. Sets its logger's level through
 * Connect's admin API (KIP-495) and returns the level to restore.
 */
export async function setTaskLogLevel(endpoint: ConnectEndpoint, level: string): Promise<string> {
  const logger = "org.apache.kafka.connect.mirror.MirrorSourceTask";
  // A logger Log4j has not configured explicitly may be unknown to the API: it then runs at the root level (info).
  const { level: before } = await requestConnect<{ level: string }>(endpoint, "GET", `/admin/loggers/${logger}`).catch(() => ({ level: "INFO" }));
  await requestConnect(endpoint, "PUT", `/admin/loggers/${logger}`, { level });
  return before;
}
