// Pure parts of `npm run compat` (scripts/compat.ts): the version list it is given and the table it prints.

/** One integration file's outcome on one Kafka version. */
export interface CompatFileResult {
  file: string;
  passed: number;
  failed: number;
  skipped: number;
  /** The file's tests, from vitest's JSON report: its beforeAll/afterAll hooks are not counted. */
  seconds: number;
}

/** One Kafka version's run of the compatibility subset. */
export interface CompatVersionResult {
  version: string;
  /** Whole run: jar resolution, sandbox start, every file, teardown. */
  seconds: number;
  /** Vitest's exit code (0 = every selected file passed). */
  exitCode: number;
  files: CompatFileResult[];
}

/** The subset of the vitest JSON reporter's output this script reads. */
export interface VitestJsonReport {
  testResults: {
    name: string;
    startTime?: number;
    endTime?: number;
    assertionResults: { status: string }[];
  }[];
}

/** Parses `--kafka 3.6.2,3.9.1`: versions written like 4.3.1, no duplicates. */
export function parseVersionList(raw: string | undefined, fallback: string): string[] {
  const versions = (raw ?? fallback).split(",").map((v) => v.trim()).filter((v) => v.length > 0);
  const bad = versions.filter((v) => !/^\d+\.\d+\.\d+$/.test(v));
  if (versions.length === 0 || bad.length > 0) {
    throw new Error(`--kafka takes versions like 3.9.1,4.3.1 (comma-separated); got "${raw ?? ""}"`);
  }
  return [...new Set(versions)];
}

/** Per-file outcome from vitest's JSON report; `root` is cut from the file names. */
export function summarizeVitestReport(report: VitestJsonReport, root: string): CompatFileResult[] {
  return report.testResults.map((r) => ({
    file: r.name.startsWith(root) ? r.name.slice(root.length).replace(/^\//, "") : r.name,
    passed: r.assertionResults.filter((a) => a.status === "passed").length,
    failed: r.assertionResults.filter((a) => a.status === "failed").length,
    skipped: r.assertionResults.filter((a) => a.status !== "passed" && a.status !== "failed").length,
    seconds: r.startTime !== undefined && r.endTime !== undefined ? Math.round((r.endTime - r.startTime) / 100) / 10 : 0,
  }));
}

/**
 * A file passed when it ran tests and none failed. A file vitest never reported (its suite crashed before any test,
 * or the sandbox did not start) counts as failed: unknown is not a pass.
 */
export function isFilePassed(result: CompatFileResult | undefined): boolean {
  return result !== undefined && result.failed === 0 && result.passed > 0;
}

/** The table `npm run compat` prints: one line per version and file, then one per version. */
export function formatCompatTable(results: CompatVersionResult[], selectedFiles: string[]): string {
  const lines = [`${"version".padEnd(8)} ${"file".padEnd(52)} ${"result".padEnd(8)} tests  test s`];
  for (const v of results) {
    for (const file of selectedFiles) {
      const r = v.files.find((f) => f.file === file);
      const outcome = isFilePassed(r) ? "pass" : r === undefined ? "not run" : "FAIL";
      const tests = r ? `${r.passed}/${r.passed + r.failed}` : "-";
      lines.push(`${v.version.padEnd(8)} ${file.padEnd(52)} ${outcome.padEnd(8)} ${tests.padStart(5)}  ${(r?.seconds ?? 0).toFixed(0).padStart(7)}`);
    }
  }
  lines.push("");
  for (const v of results) {
    const passed = selectedFiles.filter((f) => isFilePassed(v.files.find((r) => r.file === f))).length;
    lines.push(`Kafka ${v.version}: ${passed}/${selectedFiles.length} files passed in ${v.seconds.toFixed(0)} s`);
  }
  return lines.join("\n");
}
