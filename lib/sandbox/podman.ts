// Debian's podman running the Gapwatch image beside the sandbox (the image test). On this kind of machine (itself a
// container) podman needs runc, cgroupfs and no default ulimits, which containers.conf here says; containers share the
// host's network, so they reach the sandbox on 127.0.0.1 and answer on the port they are given. Every container is
// started detached, tracked by the id podman returns, and stopped and removed by that id (never by name).
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { gapwatchDir } from "./paths";

/** containers.conf for podman on this machine: runc, cgroupfs, no default ulimits (none may be raised here). */
const containersConf = ['[containers]', 'default_ulimits = []', '', '[engine]', 'cgroup_manager = "cgroupfs"', 'runtime = "runc"', ''].join("\n");

export interface ContainerSpec {
  image: string;
  env?: Record<string, string>;
  /** `host path` → `container path[:options]`. */
  volumes?: Record<string, string>;
  /** Root filesystem read-only (podman adds a tmpfs /tmp). Default true. */
  readOnly?: boolean;
}

/** A running container, by id. */
export interface Container {
  id: string;
  /** Its processes' host PIDs: PID 1 of the container (podman inspect's State.Pid). */
  hostPid(): Promise<number>;
  logs(): Promise<string>;
  /**
   * `podman stop` with SIGTERM and `graceSeconds` before SIGKILL; resolves with the exit code and the seconds the
   * container took to exit, then removes it.
   */
  stop(graceSeconds?: number): Promise<{ exitCode: number; seconds: number }>;
}

/** Writes containers.conf under the sandbox home and returns the environment podman runs with (CONTAINERS_CONF). */
export function preparePodmanEnv(): NodeJS.ProcessEnv {
  const dir = path.join(gapwatchDir, "podman");
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, "containers.conf");
  writeFileSync(file, containersConf);
  return { ...process.env, CONTAINERS_CONF: file };
}

/**
 * Runs podman with the sandbox's containers.conf; resolves with its trimmed stdout (and stderr after it with
 * `withStderr`: a container's log is both), rejects with its stderr.
 */
export function runPodman(args: string[], withStderr = false): Promise<string> {
  const env = preparePodmanEnv();
  return new Promise((resolve, reject) => {
    const child = spawn("podman", args, { env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
    child.on("error", (e) => reject(new Error(`cannot run podman: ${e.message}`)));
    child.on("exit", (code) => (code === 0 ? resolve((withStderr ? `${out}${err}` : out).trim()) : reject(new Error(`podman ${args[0]} failed (exit ${code}): ${err.trim().slice(-2000)}`))));
  });
}

/** Starts a detached container on the host network with runc (read-only root unless said otherwise). */
export async function startContainer(spec: ContainerSpec): Promise<Container> {
  const args = ["run", "--detach", "--runtime", "runc", "--network", "host"];
  if (spec.readOnly !== false) args.push("--read-only");
  for (const [name, value] of Object.entries(spec.env ?? {})) args.push("--env", `${name}=${value}`);
  for (const [host, inside] of Object.entries(spec.volumes ?? {})) args.push("--volume", `${host}:${inside}`);
  const id = await runPodman([...args, spec.image]);
  return {
    id,
    hostPid: async () => Number(await runPodman(["inspect", "--format", "{{.State.Pid}}", id])),
    logs: () => runPodman(["logs", id], true),
    async stop(graceSeconds = 10) {
      const started = Date.now();
      await runPodman(["stop", "--time", String(graceSeconds), id]);
      const seconds = (Date.now() - started) / 1000;
      const exitCode = Number(await runPodman(["inspect", "--format", "{{.State.ExitCode}}", id]));
      await runPodman(["rm", "--force", id]);
      return { exitCode, seconds };
    },
  };
}
