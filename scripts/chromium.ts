import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

export const chromiumPath = "/usr/bin/chromium";

/**
 * Makes sure Debian's Chromium is installed for the e2e tests (Playwright never downloads a
 * browser here). Installs the `chromium` apt package when missing and we are root; otherwise
 * stops with what to do.
 */
export function ensureChromium(log: (line: string) => void): void {
  if (existsSync(chromiumPath)) return;
  if (process.getuid?.() !== 0) {
    throw new Error(`${chromiumPath} is missing and this user cannot install it; run \`sudo apt-get install -y chromium\` and retry`);
  }
  log("Installing Debian's chromium package for the browser tests…");
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  let result = spawnSync("apt-get", ["install", "-y", "--no-install-recommends", "chromium"], { stdio: "inherit", env });
  if (result.status !== 0) {
    spawnSync("apt-get", ["update"], { stdio: "inherit", env });
    result = spawnSync("apt-get", ["install", "-y", "--no-install-recommends", "chromium"], { stdio: "inherit", env });
  }
  if (result.status !== 0 || !existsSync(chromiumPath)) throw new Error("apt-get install chromium failed; see the output above");
}
