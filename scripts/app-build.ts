import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { repoRoot } from "@/lib/sandbox/paths";

const hashFile = path.join(repoRoot, ".next", "gapwatch-source-hash");
const sourceRoots = ["app", "components", "lib", "public", "next.config.ts", "postcss.config.mjs", "tsconfig.json", "package-lock.json", "instrumentation.ts"];

/** Hash of everything `next build` reads, so a later run can skip an unchanged build. */
function hashSources(): string {
  const hash = createHash("sha256");
  const visit = (p: string) => {
    if (!existsSync(p)) return;
    if (statSync(p).isDirectory()) {
      for (const entry of readdirSync(p).sort()) visit(path.join(p, entry));
    } else {
      hash.update(path.relative(repoRoot, p));
      hash.update(readFileSync(p));
    }
  };
  for (const root of sourceRoots) visit(path.join(repoRoot, root));
  return hash.digest("hex");
}

/** Runs `next build` unless the sources are unchanged since the last successful build. */
export async function buildAppIfChanged(log: (line: string) => void): Promise<"built" | "up to date"> {
  const hash = hashSources();
  if (existsSync(hashFile) && readFileSync(hashFile, "utf8") === hash && existsSync(path.join(repoRoot, ".next", "BUILD_ID"))) return "up to date";
  log("Building the dashboard (next build)…");
  await runCommand(path.join(repoRoot, "node_modules", ".bin", "next"), ["build"], { NEXT_TELEMETRY_DISABLED: "1" });
  writeFileSync(hashFile, hash);
  return "built";
}

/** Runs a command in the repository root, inheriting output; rejects on a non-zero exit. */
export function runCommand(command: string, args: string[], env: Record<string, string> = {}): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: repoRoot, stdio: "inherit", env: { ...process.env, ...env } });
    child.on("error", (err) => reject(new Error(`cannot run ${command}: ${err.message}`)));
    child.on("exit", (code, signal) => (code === 0 ? resolve() : reject(new Error(`${path.basename(command)} ${args.join(" ")} failed (${signal ?? `exit ${code}`})`))));
  });
}
