import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { collectorBundleDir, collectorBundleStamp } from "@/lib/pipeline/collector-entry";
import { repoRoot } from "@/lib/sandbox/paths";
import { bundleCollectorProcess } from "./collector-bundle";

const hashFile = path.join(repoRoot, ".next", "gapwatch-source-hash");
const buildIdFile = path.join(repoRoot, ".next", "BUILD_ID");
const sourceRoots = [
  "app", "components", "lib", "public", "next.config.ts", "postcss.config.mjs", "tsconfig.json", "package-lock.json",
  "instrumentation.ts", "collector-process.ts", "scripts/collector-bundle.ts",
];

/** Hash of everything `next build` and the collector's bundle read, so a later run can skip an unchanged build. */
export function hashSources(): string {
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

/** Builds the app unless the sources are unchanged since the last successful build and its collector bundle. */
export async function buildAppIfChanged(log: (line: string) => void): Promise<"built" | "up to date"> {
  if (existsSync(hashFile) && readFileSync(hashFile, "utf8") === hashSources() && hasCollectorBundle()) return "up to date";
  await buildApp(log);
  return "built";
}

/**
 * `npm run image`'s build: as buildAppIfChanged, and also Next.js's standalone output (.next/standalone, next.config.ts)
 * of this very build; a build without it is made again with it. `next start` serves either.
 */
export async function buildStandaloneIfChanged(log: (line: string) => void, options: BuildOptions = {}): Promise<"built" | "up to date"> {
  const standaloneId = path.join(repoRoot, ".next", "standalone", ".next", "BUILD_ID");
  const current = existsSync(hashFile) && readFileSync(hashFile, "utf8") === hashSources() && hasCollectorBundle();
  if (current && existsSync(standaloneId) && readFileSync(standaloneId, "utf8") === readFileSync(buildIdFile, "utf8")) return "up to date";
  await buildApp(log, { ...options, standalone: true });
  return "built";
}

/**
 * `standalone`: with Next.js's standalone output too (GAPWATCH_STANDALONE=1, read by next.config.ts). `typesChecked`:
 * the caller ran `tsc --noEmit` over these sources (npm test's typecheck stage), so next build skips its own pass.
 */
export interface BuildOptions {
  standalone?: boolean;
  typesChecked?: boolean;
}

/**
 * `npm run build` and buildAppIfChanged: `next build`, then role all's collector process bundled with the same
 * build (scripts/collector-bundle.ts); the source hash is recorded last, for buildAppIfChanged.
 */
export async function buildApp(log: (line: string) => void, options: BuildOptions = {}): Promise<void> {
  // Hashed first: a source edited during the build makes the next buildAppIfChanged build again.
  const hash = hashSources();
  log(`Building the dashboard (next build${options.standalone ? ", standalone output" : ""}) and its collector process (esbuild)…`);
  const env: Record<string, string> = {
    NEXT_TELEMETRY_DISABLED: "1", GAPWATCH_STANDALONE: options.standalone ? "1" : "0", GAPWATCH_TYPES_CHECKED: options.typesChecked ? "1" : "0",
  };
  await runCommand(path.join(repoRoot, "node_modules", ".bin", "next"), ["build"], env);
  await bundleCollectorProcess();
  writeFileSync(hashFile, hash);
}

/** True when .next holds a build and the collector bundle made with it. */
function hasCollectorBundle(): boolean {
  const stamp = path.join(repoRoot, collectorBundleDir, collectorBundleStamp);
  if (!existsSync(buildIdFile) || !existsSync(stamp)) return false;
  return readFileSync(stamp, "utf8").trim() === readFileSync(buildIdFile, "utf8").trim();
}

/** Runs a command in the repository root, inheriting output; rejects on a non-zero exit. */
export function runCommand(command: string, args: string[], env: Record<string, string> = {}): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: repoRoot, stdio: "inherit", env: { ...process.env, ...env } });
    child.on("error", (err) => reject(new Error(`cannot run ${command}: ${err.message}`)));
    child.on("exit", (code, signal) => (code === 0 ? resolve() : reject(new Error(`${path.basename(command)} ${args.join(" ")} failed (${signal ?? `exit ${code}`})`))));
  });
}
