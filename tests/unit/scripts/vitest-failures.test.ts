import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { VitestFailures } from "@/scripts/vitest-failures";

// A real vitest 4.1 run (FORCE_COLOR=1, stdout and stderr interleaved) of two files: one with two failing tests,
// one that leaves a timer throwing after its test passed (an unhandled error: exit 1 with no failed test).
const output = readFileSync(path.join(__dirname, "fixtures", "vitest-failed-run.txt"), "utf8").split("\n");

describe("VitestFailures", () => {
  it("keeps the failed tests, their errors and locations, and the unhandled error with its file", () => {
    const failures = new VitestFailures();
    for (const line of output) failures.take(line);
    expect(failures.lines).toEqual([
      "     × fires DATA_LOSS with the exact range 5ms",
      "     × throws 0ms",
      " FAIL  fail.test.ts > a flow > fires DATA_LOSS with the exact range",
      "AssertionError: expected { from: 20, to: 519 } to deeply equal { from: 20, to: 520 }",
      "- Expected",
      "+ Received",
      "-   \"to\": 520,",
      "+   \"to\": 519,",
      " ❯ fail.test.ts:4:82",
      " FAIL  fail.test.ts > a flow > throws",
      "Error: Kafka Connect did not answer in 30 s",
      " ❯ fail.test.ts:5:30",
      "Vitest caught 1 unhandled error during the test run.",
      "Error: collector stopped twice",
      " ❯ Timeout._onTimeout unhandled.test.ts:2:62",
      "This error originated in \"unhandled.test.ts\" test file. It doesn't mean the error was thrown inside the file itself, but while it was running.",
      "The latest test that might've caused the error is \"waits\". It might mean one of the following:",
      "- The error was thrown, while Vitest was running this test.",
      "- If the error occurred after the test had been completed, this was the last documented test before it was thrown.",
    ]);
  });

  it("keeps nothing of a run that passed, and stops at its limit", () => {
    const passed = new VitestFailures();
    for (const line of output.filter((l) => !l.includes("×") && !l.includes("⎯"))) passed.take(line);
    expect(passed.lines).toEqual([]);
    const capped = new VitestFailures(3);
    for (const line of output) capped.take(line);
    expect(capped.lines).toHaveLength(3);
  });
});
