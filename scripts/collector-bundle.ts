import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { build, type BuildOptions } from "esbuild";
import { collectorBundleDir, collectorBundleFile, collectorBundleStamp } from "@/lib/pipeline/collector-entry";
import { repoRoot } from "@/lib/sandbox/paths";

/**
 * Bundles role all's collector process (collector-process.ts and the lib/ it imports) into .next/ after `next build`,
 * stamped with that build's BUILD_ID, so that `next start` runs it with plain Node (lib/pipeline/collector-entry.ts).
 * Every npm package stays external, loaded from node_modules as under tsx: native ones (better-sqlite3, pg's optional
 * pg-native) cannot be bundled, and pino's and the Kafka client's own module loading stays as their authors ship it.
 */
export async function bundleCollectorProcess(): Promise<void> {
  const dir = path.join(repoRoot, collectorBundleDir);
  const buildId = readFileSync(path.join(repoRoot, ".next", "BUILD_ID"), "utf8").trim();
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  await build({ ...collectorBundleOptions(), outfile: path.join(dir, collectorBundleFile), logLevel: "warning" });
  // Last: a bundle without its stamp is never run.
  writeFileSync(path.join(dir, collectorBundleStamp), `${buildId}\n`);
}

/**
 * esbuild's options for role all's collector bundle, shared with the image's package list
 * (scripts/image/app-files.ts) so that the image holds every package the bundle leaves external.
 */
export function collectorBundleOptions(): BuildOptions {
  return {
    entryPoints: [path.join(repoRoot, "collector-process.ts")],
    absWorkingDir: repoRoot,
    tsconfig: path.join(repoRoot, "tsconfig.json"),
    bundle: true,
    packages: "external",
    platform: "node",
    format: "esm",
    target: "node20",
  };
}
