import { getConnectors, putConnectorConfig } from "@/lib/connect";
import { connectorNames, sourceConnectorConfig } from "../mm2-connectors";
import { bootstrapOf, type SandboxState } from "../state";
import { waitForConnector } from "./connector-control";
import { applyTaskConfig, setTaskLogLevel } from "./task-config";

export interface FailTaskReport {
  scenario: "fail-task" | "recover" | "reset-none";
  connector: string;
  taskId: number;
  state: string;
  rootCause: string | null;
  /**
   * fail-task: when the failing config was accepted (epoch ms). The task fails on its next record, within about a
   * second (heartbeats flow every second): a detection clock started here over-counts by that much, never under.
   */
  faultAt?: number;
}

/**
 * Drives MM2's source task into FAILED, deterministically: a Cast transform that turns each
 * record's value into an int32 is added to the connector. MM2 values are raw bytes, so the
 * transform throws a DataException on the first record and, with errors.tolerance=none, Connect
 * fails the task. Heartbeats flow every second, so there is always a record.
 */
export async function runFailTask(state: SandboxState, opts: { source?: string; target?: string } = {}): Promise<FailTaskReport> {
  return reconfigure(state, opts, true, {});
}

/**
 * Makes MM2's replication consumer use `auto.offset.reset=none` (MirrorSourceConfig passes
 * `consumer.*` keys to it): after a purge the task then stays RUNNING without progress instead
 * of silently skipping — what TASK_STALLED detects. `recover` undoes it.
 */
export async function runResetNone(state: SandboxState, opts: { source?: string; target?: string } = {}): Promise<FailTaskReport> {
  const endpoint = { url: state.connect.url, timeoutMs: 15_000 };
  const name = connectorNames(opts.source ?? "east", opts.target ?? "west").source;
  // Every poll then logs "Failure during poll." with a stack trace (~1 GB a minute): keep errors only.
  await setTaskLogLevel(endpoint, "ERROR");
  await reconfigure(state, opts, false, { [resetKey]: "none" });
  // The old task keeps running (with `earliest`) until a rebalance restarts it — under load after a
  // purge made meanwhile, which it would then skip: make the new config take effect now.
  await applyTaskConfig(endpoint, name, resetKey, "none");
  return { ...(await reportTask(endpoint, name)), scenario: "reset-none" };
}

/** Undoes `fail-task` and `reset-none`: restores the normal connector config, in effect when this returns. */
export async function runRecover(state: SandboxState, opts: { source?: string; target?: string } = {}): Promise<FailTaskReport> {
  const endpoint = { url: state.connect.url, timeoutMs: 15_000 };
  const name = connectorNames(opts.source ?? "east", opts.target ?? "west").source;
  await reconfigure(state, opts, false, {});
  await applyTaskConfig(endpoint, name, resetKey, null);
  await setTaskLogLevel(endpoint, "INFO");
  return { ...(await reportTask(endpoint, name)), scenario: "recover" };
}

const resetKey = "consumer.auto.offset.reset";

async function reportTask(endpoint: { url: string; timeoutMs: number }, name: string): Promise<Omit<FailTaskReport, "scenario">> {
  const status = await waitForConnector(endpoint, name, (c) => c.tasks.length > 0, "with tasks", 90_000);
  const task = status.tasks[0]!;
  return { connector: name, taskId: task.id, state: task.state, rootCause: task.rootCause };
}

async function reconfigure(state: SandboxState, opts: { source?: string; target?: string }, fail: boolean, overrides: Record<string, string>): Promise<FailTaskReport> {
  const source = opts.source ?? "east";
  const target = opts.target ?? "west";
  const endpoint = { url: state.connect.url, timeoutMs: 15_000 };
  const name = connectorNames(source, target).source;
  const flow = { source: { alias: source, bootstrap: bootstrapOf(state, source) }, target: { alias: target, bootstrap: bootstrapOf(state, target) } };
  const extra: Record<string, string> = fail
    ? { transforms: "gapwatchFail", "transforms.gapwatchFail.type": "org.apache.kafka.connect.transforms.Cast$Value", "transforms.gapwatchFail.spec": "int32" }
    : overrides;
  const current = (await getConnectors(endpoint)).find((c) => c.name === name);
  if (!current) throw new Error(`connector ${name} not found on ${state.connect.url}`);
  await putConnectorConfig(endpoint, name, sourceConnectorConfig(flow, extra));
  const faultAt = Date.now();
  const wanted = fail ? "FAILED" : "RUNNING";
  const status = await waitForConnector(endpoint, name, (c) => c.tasks.length > 0 && c.tasks.some((t) => (fail ? t.state === "FAILED" : true)) && (fail || c.tasks.every((t) => t.state === "RUNNING")), wanted, 90_000);
  const task = status.tasks.find((t) => t.state === wanted) ?? status.tasks[0]!;
  const scenario = fail ? "fail-task" : Object.keys(overrides).length ? "reset-none" : "recover";
  return { scenario, connector: name, taskId: task.id, state: task.state, rootCause: task.rootCause, ...(fail ? { faultAt } : {}) };
}
