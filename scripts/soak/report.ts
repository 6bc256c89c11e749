// The soak's result: a table on stdout and JSON in <home>/soak/<ISO date>.json.
import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Expectation, JudgedOccurrence, Verdict } from "./expectations";

export interface SoakEventRecord {
  id: string;
  kind: string;
  fault: boolean;
  startedAt: number;
  endedAt: number | null;
  settledAt: number | null;
  details: Record<string, unknown>;
  error: string | null;
}

export interface SoakReport {
  startedAt: string;
  finishedAt: string | null;
  durationSeconds: number | null;
  exit: "completed" | "interrupted" | "failed" | null;
  exitCode: number | null;
  /** `ci`: the coverage events ran first (events.ts ciCoverageEvents); `kinds`: only these events (--events). */
  options: { minutes: number; seed: number; ci: boolean; kinds: string[] | null };
  machine: { cpus: string; cpuCount: number; memoryGiB: number; node: string; loadAverage: number[] };
  kafkaVersion: string | null;
  thresholds: Record<string, number>;
  events: SoakEventRecord[];
  expectations: Expectation[];
  alerts: JudgedOccurrence[];
  summary: {
    eventsByKind: Record<string, number>;
    expectedRequired: number;
    raised: number;
    byVerdict: Record<Verdict, number>;
    missed: number;
  } | null;
  trafficErrors: string[];
  errors: string[];
}

export function createSoakReport(options: SoakReport["options"], thresholds: Record<string, number>): SoakReport {
  const cpus = os.cpus();
  return {
    startedAt: new Date().toISOString(),
    finishedAt: null,
    durationSeconds: null,
    exit: null,
    exitCode: null,
    options,
    machine: { cpus: cpus[0]?.model ?? "unknown", cpuCount: cpus.length, memoryGiB: Math.round(os.totalmem() / 2 ** 30), node: process.version, loadAverage: os.loadavg() },
    kafkaVersion: null,
    thresholds,
    events: [],
    expectations: [],
    alerts: [],
    summary: null,
    trafficErrors: [],
    errors: [],
  };
}

/** Counts events by kind and alerts by verdict; missed = required expectations nothing met. */
export function summarize(report: SoakReport, missed: number): NonNullable<SoakReport["summary"]> {
  const eventsByKind: Record<string, number> = {};
  for (const e of report.events) eventsByKind[e.kind] = (eventsByKind[e.kind] ?? 0) + 1;
  const byVerdict: Record<Verdict, number> = { expected: 0, allowed: 0, whitelisted: 0, false: 0 };
  for (const a of report.alerts) byVerdict[a.verdict]++;
  return { eventsByKind, expectedRequired: report.expectations.filter((e) => e.required).length, raised: report.alerts.length, byVerdict, missed };
}

export function renderReport(report: SoakReport): string {
  const s = report.summary;
  const mode = report.options.ci ? " (CI: coverage events first)" : "";
  const lines = [`\nGapwatch soak, seed ${report.options.seed}, ${report.options.minutes} min of events${mode}, ${report.durationSeconds?.toFixed(0) ?? "?"} s in all (${report.exit ?? "?"})`];
  if (s !== null) {
    lines.push("", "| event | injected |", "|---|---:|");
    for (const [kind, n] of Object.entries(s.eventsByKind).sort()) lines.push(`| ${kind} | ${n} |`);
    lines.push(
      "",
      "| alerts | count |",
      "|---|---:|",
      `| required expectations | ${s.expectedRequired} |`,
      `| raised (fired or refired) | ${s.raised} |`,
      `| raised and expected | ${s.byVerdict.expected} |`,
      `| raised, allowed consequence | ${s.byVerdict.allowed} |`,
      `| raised, standing risk flag | ${s.byVerdict.whitelisted} |`,
      `| raised but unexpected (false) | ${s.byVerdict.false} |`,
      `| expected but missed | ${s.missed} |`,
    );
  }
  const line = (a: JudgedOccurrence) => `  ${a.verdict.padEnd(11)} ${a.type} ${a.severity} ${a.topic ?? ""}${a.partition === null ? "" : `/${a.partition}`} ${a.group ?? ""} at +${offsetSeconds(report, a.at)} s: ${a.summary}${a.note ? ` [${a.note}]` : ""}`;
  const notable = report.alerts.filter((a) => a.verdict === "expected" || a.verdict === "false");
  if (notable.length > 0) lines.push("", "Alerts (expected and false):", ...notable.map(line));
  const missed = report.expectations.filter((e) => e.required && e.matched.length === 0);
  if (missed.length > 0) lines.push("", "Missed:", ...missed.map((e) => `  ${e.id} ${e.type} ${e.topic ?? ""}${e.partition === null ? "" : `/${e.partition}`}: ${e.reason} ${JSON.stringify(e.exact)}`));
  if (report.errors.length > 0) lines.push("", "Errors:", ...report.errors.map((e) => `  ${e}`));
  return lines.join("\n");
}

function offsetSeconds(report: SoakReport, at: number): string {
  return ((at - Date.parse(report.startedAt)) / 1000).toFixed(0);
}

/** Writes the report as JSON (windows still open are written as null) and returns the file. */
export function writeReportFile(dir: string, report: SoakReport): string {
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${report.startedAt.replaceAll(":", "-")}.json`);
  const json = JSON.stringify(report, (_key, value: unknown) => (typeof value === "bigint" ? value.toString() : value === Infinity ? null : value), 2);
  writeFileSync(file, `${json}\n`);
  return file;
}
