#!/usr/bin/env node
// Entry point of every npm script that must work on a fresh clone: installs npm dependencies when
// node_modules is missing or older than package-lock.json, then runs scripts/<command>.ts with Node and tsx's loader.
// Plain Node only (nothing here may need a dependency).
import { spawn, spawnSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const [command, ...args] = process.argv.slice(2);
const known = ["build", "demo", "sandbox", "test", "bench", "soak", "init", "hardening", "helm", "image", "acls", "compat", "replay"];
if (!known.includes(command)) {
  process.stderr.write(`usage: node scripts/run.mjs <${known.join("|")}> [args]\n`);
  process.exit(2);
}

const lock = path.join(root, "package-lock.json");
const installed = path.join(root, "node_modules", ".package-lock.json");
if (!existsSync(installed) || statSync(installed).mtimeMs < statSync(lock).mtimeMs) {
  process.stdout.write("Installing npm dependencies (npm ci; better-sqlite3 compiles, ~2 min the first time)…\n");
  const started = Date.now();
  const result = spawnSync("npm", ["ci", "--no-audit", "--no-fund", "--loglevel=error"], {
    cwd: root,
    stdio: "inherit",
    env: { ...process.env, PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: "1" },
  });
  if (result.status !== 0) {
    process.stderr.write("npm ci failed; see the output above.\n");
    process.exit(result.status ?? 1);
  }
  process.stdout.write(`npm dependencies installed in ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
}

// Node with tsx's loader, not the tsx command: the tsx command relays a signal to its child and SIGKILLs it when the
// child has not reported the signal within 30 ms (tsx 4 relaySignals): under load that cut the demo's and the test
// runner's stop-by-PID short, leaving JVMs running.
const script = path.join(root, "scripts", `${command}.ts`);
const child = spawn(process.execPath, ["--import", "tsx", script, ...args], { cwd: root, stdio: "inherit" });
// A terminal's Ctrl-C reaches the child directly (same process group); a signal sent to this PID only is passed on.
// The scripts' handlers ignore a second signal while they stop.
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => child.kill(sig));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 130 : 1)));
