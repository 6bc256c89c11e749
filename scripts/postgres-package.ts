import { spawnSync } from "node:child_process";
import { findPostgresBin } from "@/lib/sandbox/postgres";

/**
 * Makes sure Debian's PostgreSQL server binaries are installed for the store contract tests (tests/store): installs
 * the `postgresql` apt package when missing and we are root, as scripts/chromium.ts does; otherwise stops with what
 * to do. The package's own cluster and service play no part: the tests start their own (lib/sandbox/postgres.ts).
 */
export function ensurePostgres(log: (line: string) => void): void {
  if (findPostgresBin() !== null) return;
  if (process.getuid?.() !== 0) {
    throw new Error("PostgreSQL is missing and this user cannot install it; run `sudo apt-get install -y postgresql` and retry");
  }
  log("Installing Debian's postgresql package for the store tests…");
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  const install = () => spawnSync("apt-get", ["install", "-y", "--no-install-recommends", "postgresql"], { stdio: "inherit", env });
  let result = install();
  if (result.status !== 0) {
    spawnSync("apt-get", ["update"], { stdio: "inherit", env });
    result = install();
  }
  if (result.status !== 0 || findPostgresBin() === null) throw new Error("apt-get install postgresql failed; see the output above");
}
