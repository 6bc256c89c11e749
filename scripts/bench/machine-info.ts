import { execFileSync } from "node:child_process";
import os from "node:os";

export interface MachineInfo {
  os: string;
  cpuModel: string;
  cpuCount: number;
  totalMemoryMiB: number;
  node: string;
  /** 1, 5 and 15 minute load averages when the run started (other work on the machine skews timings). */
  loadAverageAtStart: number[];
  /** The commit measured (`git rev-parse HEAD`, "+ changes" when the tree differs from it); null outside a checkout. */
  commit: string | null;
}

/** What the figures were measured on. */
export function describeMachine(): MachineInfo {
  const cpus = os.cpus();
  return {
    os: `${os.type()} ${os.release()} (${os.arch()})`,
    cpuModel: cpus[0]?.model.trim() ?? "unknown",
    cpuCount: cpus.length,
    totalMemoryMiB: Math.round(os.totalmem() / 1024 / 1024),
    node: process.version,
    loadAverageAtStart: os.loadavg().map((l) => Math.round(l * 100) / 100),
    commit: describeCommit(),
  };
}

function describeCommit(): string | null {
  const git = (...args: string[]) => execFileSync("git", args, { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  try {
    const head = git("rev-parse", "--short=12", "HEAD");
    return git("status", "--porcelain", "--untracked-files=no") === "" ? head : `${head} + changes`;
  } catch {
    return null;
  }
}
