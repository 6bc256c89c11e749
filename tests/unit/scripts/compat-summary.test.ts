import { describe, expect, it } from "vitest";
import { formatCompatTable, isFilePassed, parseVersionList, summarizeVitestReport } from "@/scripts/compat/summary";

describe("parseVersionList", () => {
  it("splits, trims and de-duplicates the --kafka list", () => {
    expect(parseVersionList("3.6.2, 3.9.1,3.6.2", "4.3.1")).toEqual(["3.6.2", "3.9.1"]);
  });
  it("falls back to the default version without --kafka", () => {
    expect(parseVersionList(undefined, "4.3.1")).toEqual(["4.3.1"]);
  });
  it("names the flag and the expected shape for a bad version", () => {
    expect(() => parseVersionList("3.9", "4.3.1")).toThrow(/--kafka takes versions like 3\.9\.1/);
    expect(() => parseVersionList("", "4.3.1")).toThrow(/--kafka/);
  });
});

describe("summarizeVitestReport", () => {
  it("counts tests per file and cuts the repository root from the name", () => {
    const rows = summarizeVitestReport(
      {
        testResults: [
          {
            name: "/repo/tests/integration/a.test.ts",
            startTime: 1_000,
            endTime: 13_460,
            assertionResults: [{ status: "passed" }, { status: "failed" }, { status: "skipped" }],
          },
        ],
      },
      "/repo",
    );
    expect(rows).toEqual([{ file: "tests/integration/a.test.ts", passed: 1, failed: 1, skipped: 1, seconds: 12.5 }]);
  });
});

describe("isFilePassed and formatCompatTable", () => {
  const files = ["tests/integration/a.test.ts", "tests/integration/b.test.ts", "tests/integration/c.test.ts"];
  const result = {
    version: "3.6.2",
    seconds: 300,
    exitCode: 1,
    files: [
      { file: files[0]!, passed: 3, failed: 0, skipped: 0, seconds: 40 },
      { file: files[1]!, passed: 2, failed: 1, skipped: 0, seconds: 50 },
    ],
  };

  it("counts a file that ran no test, or was never reported, as not passed", () => {
    expect(isFilePassed(undefined)).toBe(false);
    expect(isFilePassed({ file: "x", passed: 0, failed: 0, skipped: 2, seconds: 1 })).toBe(false);
    expect(isFilePassed(result.files[0])).toBe(true);
  });

  it("prints pass, FAIL and not run per file and a total per version", () => {
    const table = formatCompatTable([result], files);
    expect(table).toMatch(/3\.6\.2\s+tests\/integration\/a\.test\.ts\s+pass\s+3\/3\s+40/);
    expect(table).toMatch(/b\.test\.ts\s+FAIL\s+2\/3/);
    expect(table).toMatch(/c\.test\.ts\s+not run\s+-/);
    expect(table).toContain("Kafka 3.6.2: 1/3 files passed in 300 s");
  });
});
