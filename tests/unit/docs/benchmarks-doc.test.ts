import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const resultsDir = path.join(process.cwd(), "bench", "results");

/** One issue-12 target as `npm run bench` judged it (scripts/bench/targets.ts, kept in each result's `targets`). */
interface JudgedTarget {
  what: string;
  measured: string;
  verdict: string;
}

/**
 * Each target's newest measured figure over the committed results (files sort by their ISO date), keyed by what it
 * measures with the partition count left out (a synthetic run's 100,012 and a stack run's 10,000 name one target).
 */
function readNewestFigures(): Map<string, JudgedTarget & { file: string }> {
  const newest = new Map<string, JudgedTarget & { file: string }>();
  for (const file of readdirSync(resultsDir).filter((f) => f.endsWith(".json")).sort()) {
    const result = JSON.parse(readFileSync(path.join(resultsDir, file), "utf8")) as { targets?: JudgedTarget[] };
    for (const target of result.targets ?? []) {
      if (target.verdict !== "not measured") newest.set(target.what.replace(/\d[\d,]* (real )?partitions/, "N partitions"), { ...target, file });
    }
  }
  return newest;
}

describe("docs/benchmarks.md against bench/results", () => {
  it("shows every target's newest committed figure, its verdict and its file", () => {
    const doc = readFileSync(path.join(process.cwd(), "docs", "benchmarks.md"), "utf8");
    const figures = [...readNewestFigures().values()];
    expect(figures.length).toBeGreaterThan(5);
    const rows = doc.split("\n").filter((line) => line.startsWith("| "));
    const missing = figures.filter((t) => !rows.some((row) =>
      row.includes(` ${t.measured} |`) && row.includes(`| ${t.verdict} |`) && row.includes(`(../bench/results/${t.file})`)));
    expect(missing.map((t) => `${t.what}: ${t.measured} (${t.verdict}, ${t.file})`)).toEqual([]);
  });
});
