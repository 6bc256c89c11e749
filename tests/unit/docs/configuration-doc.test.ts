import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { configSchema } from "@/lib/config/schema";
import { listSchemaSettings } from "./schema-settings";

const docFile = path.join(process.cwd(), "docs", "configuration.md");

/** The rows of docs/configuration.md's settings tables: `| \`path\` | default | what it does |`, by path. */
function readDocumentedSettings(markdown: string): Map<string, string> {
  const rows = new Map<string, string>();
  for (const line of markdown.split("\n")) {
    const match = /^\| `([^`]+)` \| ([^|]*) \|/.exec(line);
    if (match && !/^[A-Z_]+$/.test(match[1]!)) rows.set(match[1]!, match[2]!.trim());
  }
  return rows;
}

/** How the doc writes a default that is a plain value: `10000`, `sqlite`, `false`, `[]`; undefined for the rest. */
function formatPlainDefault(value: unknown): string | undefined {
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "string") return `\`${String(value)}\``;
  if (Array.isArray(value) && value.length === 0) return "`[]`";
  return undefined;
}

describe("docs/configuration.md against the config schema (lib/config)", () => {
  const settings = listSchemaSettings(configSchema);
  const documented = readDocumentedSettings(readFileSync(docFile, "utf8"));

  test("the schema walk finds the settings of every part of the schema", () => {
    // A walk that silently stopped descending would make the checks below vacuous.
    const paths = settings.map((s) => s.path);
    for (const known of ["clusters[].tls.ca", "connect[].auth.password", "thresholds.stallAfterMs",
      "flows.<flow>.replicationPolicy.separator", "server.proxyAuth.adminRole", "scaleOut.sessionTimeoutMs",
      "notifications.webhooks[].format"]) {
      expect(paths).toContain(known);
    }
  });

  test("every setting of the schema has a row", () => {
    const missing = settings.map((s) => s.path).filter((p) => !documented.has(p));
    expect(missing, "settings without a row in docs/configuration.md: add `| `<path>` | default | what it does |`").toEqual([]);
  });

  test("every row names a setting the schema has", () => {
    const known = new Set(settings.map((s) => s.path));
    const stale = [...documented.keys()].filter((p) => !known.has(p));
    expect(stale, "rows in docs/configuration.md for settings the schema does not have").toEqual([]);
  });

  test("every plain default written in the doc is the schema's default", () => {
    const wrong = settings.flatMap((s) => {
      const expected = formatPlainDefault(s.defaultValue);
      const cell = documented.get(s.path);
      return expected === undefined || cell === undefined || cell.includes(expected) ? [] : [`${s.path}: doc says "${cell}", code ${expected}`];
    });
    expect(wrong).toEqual([]);
  });
});
