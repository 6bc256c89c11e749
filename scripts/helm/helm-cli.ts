// The helm CLI for checking the chart (deploy/helm/gapwatch): built with `go install` through the Go module proxy
// into .gapwatch/bin when missing, and run with its state kept under .gapwatch. Used by `npm run helm` and tests/helm.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { gapwatchDir, repoRoot } from "@/lib/sandbox/paths";

/**
 * The helm release built here: v3.21.4 is served by the Go module proxy and approved in this environment (v3.22.0 is
 * served but not approved); helm v4 changes the CLI's flags and output.
 */
export const helmVersion = "v3.21.4";
export const chartDir = path.join(repoRoot, "deploy", "helm", "gapwatch");
export const examplesDir = path.join(repoRoot, "deploy", "helm", "examples");
const helmPath = path.join(gapwatchDir, "bin", "helm");
/** Written after a build: `go install` leaves helm reporting only "v3.21" (the patch is set by helm's own Makefile). */
const stampPath = `${helmPath}.version`;

/** The values examples the chart is checked with, as absolute paths, in name order. */
export function listValuesExamples(): string[] {
  return readdirSync(examplesDir)
    .filter((name) => name.endsWith(".yaml"))
    .sort()
    .map((name) => path.join(examplesDir, name));
}

/**
 * Returns the path of a helm binary of `helmVersion`, building it with `go install` when missing or of another
 * version (a first build takes minutes: client-go and its Kubernetes modules; later ones reuse Go's build cache).
 */
export function ensureHelm(log: (line: string) => void): string {
  if (installedVersion() === helmVersion) return helmPath;
  const go = findGo();
  if (go === null) {
    throw new Error(
      `helm ${helmVersion} is not in ${path.dirname(helmPath)} and Go is missing to build it; install Go 1.26+ ` +
        "(helm's go.mod asks for it) and retry",
    );
  }
  mkdirSync(path.dirname(helmPath), { recursive: true });
  log(`Building helm ${helmVersion} with ${go.version} into ${path.dirname(helmPath)} (minutes the first time)…`);
  const started = Date.now();
  const built = spawnSync(go.path, ["install", `helm.sh/helm/v3/cmd/helm@${helmVersion}`], {
    stdio: "inherit",
    env: { ...process.env, GOBIN: path.dirname(helmPath), CGO_ENABLED: "0" },
  });
  if (built.status !== 0 || !existsSync(helmPath)) {
    throw new Error(`go install helm.sh/helm/v3/cmd/helm@${helmVersion} failed; see the output above`);
  }
  writeFileSync(stampPath, helmVersion);
  log(`helm ${helmVersion} built in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  return helmPath;
}

/** The go command on PATH, else the official tarball's place (/usr/local/go), with the version it reports. */
function findGo(): { path: string; version: string } | null {
  for (const candidate of ["go", "/usr/local/go/bin/go"]) {
    const result = spawnSync(candidate, ["version"], { encoding: "utf8" });
    if (result.status === 0) return { path: candidate, version: result.stdout.trim() };
  }
  return null;
}

/** The version of the helm built here (from its stamp), or null when there is none or it does not run. */
function installedVersion(): string | null {
  if (!existsSync(helmPath) || !existsSync(stampPath)) return null;
  const runs = spawnSync(helmPath, ["version", "--short"], { encoding: "utf8" }).status === 0;
  return runs ? readFileSync(stampPath, "utf8").trim() : null;
}

/** Result of one helm command: its exit status and what it printed. */
export interface HelmRun {
  status: number;
  stdout: string;
  stderr: string;
}

/** Runs helm with `args` in the repository root; never throws on a non-zero exit (the caller judges it). */
export function runHelm(helm: string, args: readonly string[]): HelmRun {
  // Helm's own state (repositories, cache) under .gapwatch, never the user's home.
  const helmHome = path.join(gapwatchDir, "helm");
  const env = {
    ...process.env,
    HELM_CACHE_HOME: path.join(helmHome, "cache"),
    HELM_CONFIG_HOME: path.join(helmHome, "config"),
    HELM_DATA_HOME: path.join(helmHome, "data"),
  };
  const result = spawnSync(helm, [...args], { cwd: repoRoot, encoding: "utf8", env, maxBuffer: 64 * 1024 * 1024 });
  const stderr = result.stderr ?? String(result.error ?? "");
  return { status: result.status ?? 1, stdout: result.stdout ?? "", stderr };
}

/** `helm template` of the chart with a values file and `--set` pairs; throws with helm's message when it fails. */
export function renderChart(helm: string, valuesFile: string | null, sets: readonly string[] = []): string {
  const args = ["template", "gapwatch", chartDir, "--namespace", "kafka"];
  if (valuesFile !== null) args.push("--values", valuesFile);
  for (const set of sets) args.push("--set", set);
  const run = runHelm(helm, args);
  if (run.status !== 0) throw new Error(`helm ${args.join(" ")} failed: ${run.stderr.trim()}`);
  return run.stdout;
}

/** `helm lint --strict` of the chart with a values file; throws with helm's report when it finds a problem. */
export function lintChart(helm: string, valuesFile: string): void {
  const run = runHelm(helm, ["lint", "--strict", chartDir, "--values", valuesFile]);
  if (run.status !== 0) {
    throw new Error(`helm lint ${path.relative(repoRoot, valuesFile)} failed:\n${run.stdout}${run.stderr}`);
  }
}
