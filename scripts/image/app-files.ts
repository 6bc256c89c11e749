import { cpSync, existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { isBuiltin } from "node:module";
import path from "node:path";
import { build } from "esbuild";
import { collectorBundleDir } from "@/lib/pipeline/collector-entry";
import { repoRoot } from "@/lib/sandbox/paths";
import { collectorBundleOptions } from "../collector-bundle";

/**
 * Lays out /app of the image in `stage`: Next.js's standalone output (server.js, the server's .next and only the
 * node_modules files it loads, traced by `next build`), the static assets and public/ it does not copy, and role
 * all's collector bundle with the packages it imports. No dev dependency, no compiler, no source. Returns the npm
 * packages that were added for the collector (the server had not traced them).
 */
export async function stageAppFiles(stage: string): Promise<string[]> {
  const standalone = path.join(repoRoot, ".next", "standalone");
  if (!existsSync(path.join(standalone, "server.js"))) throw new Error(`no standalone build in ${standalone}; the build step did not make one`);
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(stage, { recursive: true });
  cpSync(standalone, stage, { recursive: true, verbatimSymlinks: true });
  // Traced as the source fallback of the collector's entry (collector-entry.ts), which needs tsx: the bundle runs.
  for (const source of ["collector-process.ts", "lib"]) rmSync(path.join(stage, source), { recursive: true, force: true });
  cpSync(path.join(repoRoot, ".next", "static"), path.join(stage, ".next", "static"), { recursive: true });
  if (existsSync(path.join(repoRoot, "public"))) cpSync(path.join(repoRoot, "public"), path.join(stage, "public"), { recursive: true });
  cpSync(path.join(repoRoot, collectorBundleDir), path.join(stage, collectorBundleDir), { recursive: true });
  const added: string[] = [];
  for (const name of await listCollectorPackages()) addPackage(name, stage, added);
  return added;
}

/**
 * The npm packages role all's collector bundle imports (it keeps them external: scripts/collector-bundle.ts), from
 * esbuild's metafile of the same entry, without writing anything.
 */
async function listCollectorPackages(): Promise<string[]> {
  const result = await build({ ...collectorBundleOptions(), write: false, metafile: true, logLevel: "silent" });
  const names = new Set<string>();
  for (const input of Object.values(result.metafile.inputs)) {
    for (const imported of input.imports) {
      if (!imported.external || isBuiltin(imported.path)) continue;
      names.add(packageNameOf(imported.path));
    }
  }
  return [...names].sort();
}

/** Copies a package (and, recursively, its dependencies) into the stage's node_modules unless it is there already. */
function addPackage(name: string, stage: string, added: string[]): void {
  const target = path.join(stage, "node_modules", name);
  if (existsSync(path.join(target, "package.json"))) return;
  const source = path.join(repoRoot, "node_modules", name);
  if (!existsSync(path.join(source, "package.json"))) return; // an optional dependency not installed (pg-native)
  // Type declarations some packages list as dependencies (the MSK IAM signer's @types/node) are never loaded.
  if (name.startsWith("@types/")) return;
  cpSync(source, target, { recursive: true, verbatimSymlinks: true });
  added.push(name);
  const manifest = JSON.parse(readFileSync(path.join(source, "package.json"), "utf8")) as { dependencies?: Record<string, string> };
  for (const dependency of Object.keys(manifest.dependencies ?? {})) addPackage(dependency, stage, added);
}

function packageNameOf(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
}
