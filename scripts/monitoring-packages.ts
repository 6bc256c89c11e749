import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { alertmanagerBinary, prometheusBinary, promtoolBinary } from "@/lib/sandbox/monitoring";

const packages = ["prometheus", "prometheus-alertmanager"];

/**
 * Makes sure Debian's Prometheus (with promtool) and Alertmanager are installed for the receiver
 * integration tests (tests/integration/receivers): installs the apt packages when missing and we
 * are root, as scripts/chromium.ts does; otherwise stops with what to do. Their systemd services
 * are not used: the tests start their own processes (lib/sandbox/monitoring.ts).
 */
export function ensureMonitoringPackages(log: (line: string) => void): void {
  if ([prometheusBinary, promtoolBinary, alertmanagerBinary].every((file) => existsSync(file))) return;
  if (process.getuid?.() !== 0) {
    throw new Error(`Prometheus or Alertmanager is missing and this user cannot install them; run \`sudo apt-get install -y ${packages.join(" ")}\` and retry`);
  }
  log(`Installing Debian's ${packages.join(" and ")} packages for the receiver tests…`);
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  const install = () => spawnSync("apt-get", ["install", "-y", "--no-install-recommends", ...packages], { stdio: "inherit", env });
  let result = install();
  if (result.status !== 0) {
    spawnSync("apt-get", ["update"], { stdio: "inherit", env });
    result = install();
  }
  if (result.status !== 0 || !existsSync(prometheusBinary) || !existsSync(alertmanagerBinary)) {
    throw new Error(`apt-get install ${packages.join(" ")} failed; see the output above`);
  }
}
