// What a failed vitest run said about its failures, out of its output: CI keeps only the tail of a run's log, and an
// integration shard that failed early has its failures far above the stage summary, hidden by the other shards' lines.
import { stripVTControlCharacters } from "node:util";

/** The failing tests and their errors' first lines, in the order vitest printed them (at most `max` lines). */
export class VitestFailures {
  readonly lines: string[] = [];
  private inReport = false;

  constructor(private readonly max = 40) {}

  /** Takes one line of vitest's output (stdout and stderr interleaved, colours included). */
  take(raw: string): void {
    const line = stripVTControlCharacters(raw).trimEnd();
    // vitest's failure report starts with these banners; the per-file listing before it marks failed tests with ×.
    if (/⎯ (Failed Tests? \d+|Unhandled Errors?|Uncaught Exception|Unhandled Rejection) ⎯/.test(line)) {
      this.inReport = true;
      return;
    }
    if (this.inReport ? !isReportLine(line) : !/^\s+× /.test(line)) return;
    if (this.lines.length < this.max) this.lines.push(line);
  }
}

function isReportLine(line: string): boolean {
  if (line.trimStart().startsWith("{")) return false; // a JSON log line of the code under test
  return /^\s*(FAIL\s|\w*(Error|Exception)\b|Vitest caught|The latest test|This error originated|[-+] |❯ (?!.*node:internal).*:\d+:\d+$)/.test(line);
}
