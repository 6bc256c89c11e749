import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { FindingType, riskFindingTypes } from "@/lib/detect/types";

const root = process.cwd();
const doc = readFileSync(path.join(root, "docs", "alerts.md"), "utf8");

/** docs/alerts.md's `### ` sections, by heading text. */
function readSections(): Map<string, string> {
  const sections = new Map<string, string>();
  for (const part of doc.split(/\n### /).slice(1)) {
    const [heading = "", ...body] = part.split("\n");
    sections.set(heading, body.join("\n").split(/\n## /)[0]!);
  }
  return sections;
}

/** The paragraph of a section that starts with `**<label>:**`, or null. */
function findParagraph(section: string, label: string): string | null {
  return section.split(/\n\s*\n/).find((p) => p.startsWith(`**${label}:**`)) ?? null;
}

/**
 * The test files a "Proven by" paragraph cites: `integration/<dir>/<file>` and `unit/<dir>/<file>` are vitest files,
 * names after "e2e" are Playwright specs.
 */
function listCitedTests(paragraph: string): string[] {
  const afterE2e = paragraph.split(/\be2e\b/)[1] ?? "";
  const vitest = [...paragraph.matchAll(/`((?:integration|unit)\/[a-z0-9/-]+)`/g)].map((m) => `tests/${m[1]}.test`);
  const e2e = [...afterE2e.matchAll(/`([a-z0-9-]+\/[a-z0-9-]+)`/g)].map((m) => `tests/e2e/${m[1]}.spec`);
  return [...vitest, ...e2e];
}

function existsAsTest(stem: string): boolean {
  return [".ts", ".tsx"].some((ext) => existsSync(path.join(root, `${stem}${ext}`)));
}

describe("docs/alerts.md: every alert says what it stays quiet on and which tests prove it", () => {
  const sections = readSections();
  const alertTypes = Object.values(FindingType).filter((t) => !riskFindingTypes.has(t));

  it("has a section per alert type with its severity, 'Quiet on' and 'Proven by'", () => {
    const lacking = alertTypes.flatMap((type) => {
      const entry = [...sections].find(([heading]) => heading.includes(`\`${type}\``));
      if (entry === undefined) return [`${type}: no section`];
      const [heading, body] = entry;
      return [
        /\*\*(critical|warning|info)\b/.test(body) ? null : `${heading}: no severity`,
        findParagraph(body, "Quiet on") === null ? `${heading}: no Quiet on` : null,
        findParagraph(body, "Proven by") === null ? `${heading}: no Proven by` : null,
      ].filter((problem): problem is string => problem !== null);
    });
    expect(alertTypes.length).toBeGreaterThan(20);
    expect(lacking).toEqual([]);
  });

  it("cites only test files that exist", () => {
    const cited = [...sections.values()].flatMap((body) => {
      const proven = findParagraph(body, "Proven by");
      return proven === null ? [] : listCitedTests(proven);
    });
    expect(cited.length).toBeGreaterThan(40);
    expect(cited.filter((stem) => !existsAsTest(stem))).toEqual([]);
  });
});
