import { spawn, spawnSync } from "node:child_process";

/** Debian packages `npm run image` needs: buildah builds, mmdebstrap makes the root filesystem (podman and runc run). */
const imagePackages = ["buildah", "mmdebstrap", "podman", "runc"];

/**
 * Installs Debian's buildah, mmdebstrap, podman and runc when one is missing and we are root (as scripts/chromium.ts
 * installs Chromium); otherwise stops with the apt-get line to run.
 */
export function ensureImageTools(log: (line: string) => void): void {
  const missing = imagePackages.filter((name) => spawnSync("sh", ["-c", `command -v ${name}`]).status !== 0);
  if (missing.length === 0) return;
  if (process.getuid?.() !== 0) {
    throw new Error(`${missing.join(", ")} missing and this user cannot install them; run \`sudo apt-get install -y ${imagePackages.join(" ")}\``);
  }
  log(`Installing Debian's ${missing.join(", ")}…`);
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  const install = () => spawnSync("apt-get", ["install", "-y", "--no-install-recommends", ...imagePackages], { stdio: "inherit", env });
  let result = install();
  if (result.status !== 0) {
    spawnSync("apt-get", ["update"], { stdio: "inherit", env });
    result = install();
  }
  if (result.status !== 0) throw new Error(`apt-get install ${imagePackages.join(" ")} failed; see the output above`);
}

/** Runs a command and resolves with its trimmed stdout; rejects with its stderr's last lines on a non-zero exit. */
export function capture(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
    child.on("error", (e) => reject(new Error(`cannot run ${command}: ${e.message}`)));
    child.on("exit", (code, signal) => {
      if (code === 0) return resolve(out.trim());
      const tail = err.trim().split("\n").slice(-8).join("\n");
      reject(new Error(`${command} ${args.join(" ")} failed (${signal ?? `exit ${code}`}):\n${tail}`));
    });
  });
}
