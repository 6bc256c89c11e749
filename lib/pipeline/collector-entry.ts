// Which file role all's collector process runs. `npm run build` (scripts/app-build.ts) bundles collector-process.ts
// with esbuild next to the pages in .next/ and stamps the bundle with the build's BUILD_ID: `next start` then runs the
// very lib/ code its pages were built from, and Node starts it without compiling anything. Under `next dev` and in
// tests the child runs the sources with tsx's loader, as every script here does.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";

/** Where the build puts the collector's bundle, relative to the repository root (`next build` empties .next first). */
export const collectorBundleDir = path.join(".next", "gapwatch-collector");
export const collectorBundleFile = "collector-process.mjs";
/** The BUILD_ID of the `next build` the bundle was made with, written after the bundle. */
export const collectorBundleStamp = "BUILD_ID";

export interface CollectorEntry {
  kind: "bundle" | "source";
  /** Node's arguments: the bundle, or tsx's loader and the source entry. */
  args: string[];
  /** Why the source runs in a production server (no bundle, or one of another build); null otherwise. */
  fallback: string | null;
}

/**
 * The bundle when this is the built server (`nodeEnv` production, as `next build` compiles it) and the bundle was made
 * with the same `next build` (its stamp is .next/BUILD_ID); otherwise collector-process.ts from source under tsx.
 */
export function resolveCollectorEntry(root: string, nodeEnv: string | undefined): CollectorEntry {
  const source = (fallback: string | null): CollectorEntry => ({
    kind: "source",
    args: ["--import", "tsx", path.join(root, "collector-process.ts")],
    fallback,
  });
  if (nodeEnv !== "production") return source(null);
  const dir = path.join(root, collectorBundleDir);
  const stamp = readTrimmed(path.join(dir, collectorBundleStamp));
  const file = path.join(dir, collectorBundleFile);
  if (stamp === null || !existsSync(file)) return source(`no collector bundle in ${dir}`);
  const buildId = readTrimmed(path.join(root, ".next", "BUILD_ID"));
  if (stamp !== buildId) {
    return source(`the collector bundle is of build ${stamp}, the pages of build ${buildId ?? "none"}`);
  }
  return { kind: "bundle", args: [file], fallback: null };
}

function readTrimmed(file: string): string | null {
  return existsSync(file) ? readFileSync(file, "utf8").trim() : null;
}
