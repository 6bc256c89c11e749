import { pauseConnector, resumeConnector } from "@/lib/connect";
import { connectorNames } from "../mm2-connectors";
import { sleep } from "../processes";
import type { SandboxState } from "../state";
import { allTasks, waitForConnector } from "./connector-control";

export interface LagReport {
  scenario: "lag";
  connector: string;
  pausedSeconds: number;
  resumed: boolean;
}

/** Builds replication lag by pausing MM2's source connector for `seconds` (0 = leave it paused). */
export async function runLag(state: SandboxState, opts: { source?: string; target?: string; seconds?: number } = {}): Promise<LagReport> {
  const endpoint = { url: state.connect.url, timeoutMs: 15_000 };
  const connector = connectorNames(opts.source ?? "east", opts.target ?? "west").source;
  const seconds = opts.seconds ?? 30;
  await pauseConnector(endpoint, connector);
  await waitForConnector(endpoint, connector, allTasks("PAUSED"), "PAUSED");
  if (seconds === 0) return { scenario: "lag", connector, pausedSeconds: 0, resumed: false };
  await sleep(seconds * 1000);
  await resumeConnector(endpoint, connector);
  await waitForConnector(endpoint, connector, allTasks("RUNNING"), "RUNNING");
  return { scenario: "lag", connector, pausedSeconds: seconds, resumed: true };
}

/** Resumes MM2's source connector (after `lag --seconds 0` or an interrupted scenario). */
export async function runResume(state: SandboxState, opts: { source?: string; target?: string } = {}): Promise<LagReport> {
  const endpoint = { url: state.connect.url, timeoutMs: 15_000 };
  const connector = connectorNames(opts.source ?? "east", opts.target ?? "west").source;
  await resumeConnector(endpoint, connector);
  await waitForConnector(endpoint, connector, allTasks("RUNNING"), "RUNNING");
  return { scenario: "lag", connector, pausedSeconds: 0, resumed: true };
}
