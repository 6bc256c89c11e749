import os from "node:os";

export interface MachineInfo {
  os: string;
  cpuModel: string;
  cpuCount: number;
  totalMemoryMiB: number;
  node: string;
  /** 1, 5 and 15 minute load averages when the run started (other work on the machine skews timings). */
  loadAverageAtStart: number[];
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
  };
}
