import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { resolveCollectorEntry } from "@/lib/pipeline/collector-entry";

/** A repository root with a .next/BUILD_ID and, when `bundleStamp` is given, a collector bundle stamped with it. */
function makeRoot(buildId: string | null, bundleStamp: string | null, bundleFile = true): string {
  const root = mkdtempSync(path.join(os.tmpdir(), "gapwatch-collector-entry-"));
  const bundleDir = path.join(root, ".next", "gapwatch-collector");
  mkdirSync(bundleDir, { recursive: true });
  if (buildId !== null) writeFileSync(path.join(root, ".next", "BUILD_ID"), buildId);
  if (bundleStamp !== null) writeFileSync(path.join(bundleDir, "BUILD_ID"), `${bundleStamp}\n`);
  if (bundleFile) writeFileSync(path.join(bundleDir, "collector-process.mjs"), "");
  return root;
}

describe("the collector process's entry", () => {
  it("is the bundle of the same build in a production server", () => {
    const root = makeRoot("build-7", "build-7");
    expect(resolveCollectorEntry(root, "production")).toEqual({
      kind: "bundle",
      args: [path.join(root, ".next", "gapwatch-collector", "collector-process.mjs")],
      fallback: null,
    });
  });

  it("is the source under tsx in next dev and tests, even with a matching bundle", () => {
    const root = makeRoot("build-7", "build-7");
    for (const env of ["development", "test", undefined]) {
      expect(resolveCollectorEntry(root, env)).toEqual({
        kind: "source",
        args: ["--import", "tsx", path.join(root, "collector-process.ts")],
        fallback: null,
      });
    }
  });

  it("falls back to the source, saying why, when the bundle is of another build or missing", () => {
    const other = resolveCollectorEntry(makeRoot("build-8", "build-7"), "production");
    expect([other.kind, other.fallback]).toEqual([
      "source",
      "the collector bundle is of build build-7, the pages of build build-8",
    ]);
    const unstamped = makeRoot("build-8", null);
    const expected = `no collector bundle in ${path.join(unstamped, ".next", "gapwatch-collector")}`;
    expect(resolveCollectorEntry(unstamped, "production").fallback).toBe(expected);
    const stampOnly = makeRoot("build-8", "build-8", false);
    expect(resolveCollectorEntry(stampOnly, "production").kind).toBe("source");
  });
});
