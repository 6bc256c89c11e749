import path from "node:path";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

/**
 * The layer rule of eslint.config.mjs that keeps every rule in lib/detect (docs/development.md "Add an alert"):
 * lint fixtures, as if written at the given paths, through the project's own config.
 */
const eslint = new ESLint({ cwd: path.resolve(__dirname, "../../..") });

/** The rule ids and messages ESLint reports for `code` written at `file`. */
async function lintAt(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.resolve(__dirname, "../../..", file) });
  return (result?.messages ?? []).map((m) => `${m.ruleId}: ${m.message}`);
}

/** A rule written outside the engine: it makes a finding. */
const ruleElsewhere = `import { FindingType, Severity, type Finding } from "@/lib/detect/types";

/** Warns when a flow has no partitions. */
export function detectEmptyFlows(flows: readonly { id: string; partitions: readonly unknown[] }[], now: number): Finding[] {
  return flows
    .filter((flow) => flow.partitions.length === 0)
    .map((flow) => ({
      key: \`\${FindingType.FLOW_CONFIG_WARNING}|\${flow.id}\`,
      type: FindingType.FLOW_CONFIG_WARNING,
      severity: Severity.WARNING,
      flow: flow.id,
      summary: \`\${flow.id} has no partitions\`,
      evidence: {},
      observedAt: now,
    }));
}
`;

/** A readiness check written outside the engine: what it is made of, and the check object it builds. */
const readinessElsewhere = `import type { ReadinessRule } from "@/lib/detect/readiness-rule";
import { makeOutcome } from "@/lib/detect/readiness/outcome";

/** Not ready while the flow has no partition. */
export const partitionsCheck: ReadinessRule = {
  id: "topics",
  title: "Partitions",
  check: ({ flow }) => makeOutcome(flow.partitions.length === 0 ? "not-ready" : "ok", \`\${flow.partitions.length} partitions\`),
};
`;

/** The same check without the engine's imports: still a check object. */
const bareReadinessCheck = `/** Not ready while the flow has no partition. */
export const partitionsCheck = {
  id: "topics",
  title: "Partitions",
  check: (flow: { partitions: readonly unknown[] }) => ({ status: flow.partitions.length === 0 ? "not-ready" : "ok" }),
};
`;

describe("rules live in lib/detect only (eslint.config.mjs)", () => {
  it("fails a rule written in lib/views, lib/pipeline or lib/alerts: its Severity import and the finding it builds", { timeout: 120_000 }, async () => {
    for (const file of ["lib/views/empty-flows.ts", "lib/pipeline/empty-flows.ts", "lib/alerts/empty-flows.ts"]) {
      const messages = await lintAt(file, ruleElsewhere);
      expect(messages.filter((m) => m.startsWith("no-restricted-imports: 'Severity' import"))).toHaveLength(1);
      expect(messages.filter((m) => m.startsWith("no-restricted-syntax: This builds a Finding"))).toHaveLength(1);
    }
  });

  it("passes the same rule in lib/detect", { timeout: 120_000 }, async () => {
    expect(await lintAt("lib/detect/empty-flows.ts", ruleElsewhere)).toEqual([]);
  });

  it("lets the pure models below the engine name findings, and nothing else of it", { timeout: 120_000 }, async () => {
    const vocabulary = 'import { FindingType } from "@/lib/detect/types";\nexport const lossType = FindingType.DATA_LOSS;\n';
    expect(await lintAt("lib/audit/loss-type.ts", vocabulary)).toEqual([]);
    const engine = 'import { rules } from "@/lib/detect";\nexport const count = rules.length;\n';
    expect(await lintAt("lib/translation/rule-count.ts", engine)).toEqual([
      "no-restricted-imports: '@/lib/detect' import is restricted from being used by a pattern. lib/translation must not import a higher layer (ARCHITECTURE.md: layers import downward only)",
    ]);
  });

  it("fails a readiness check written in lib/views, lib/pipeline, app or scripts: its imports and the check it builds", { timeout: 120_000 }, async () => {
    for (const file of ["lib/views/partitions-check.ts", "lib/pipeline/partitions-check.ts", "app/partitions-check.ts"]) {
      const messages = await lintAt(file, readinessElsewhere);
      expect(messages.filter((m) => m.startsWith("no-restricted-imports: 'ReadinessRule' import"))).toHaveLength(1);
      expect(messages.filter((m) => m.startsWith("no-restricted-imports: '@/lib/detect/readiness/outcome' import"))).toHaveLength(1);
      expect(messages.filter((m) => m.startsWith("no-restricted-syntax: This builds a readiness check"))).toHaveLength(1);
    }
    for (const file of ["lib/views/partitions-check.ts", "scripts/partitions-check.ts"]) {
      expect(await lintAt(file, bareReadinessCheck)).toEqual([
        "no-restricted-syntax: This builds a readiness check: readiness checks live in lib/detect/readiness and are registered in lib/detect/rules.ts readinessRules (docs/development.md \"Add a readiness check\")",
      ]);
    }
  });

  it("passes the same readiness check in lib/detect, and the engine's own checks and their caller", { timeout: 120_000 }, async () => {
    expect(await lintAt("lib/detect/readiness/partitions.ts", readinessElsewhere)).toEqual([]);
    const results = await eslint.lintFiles(["lib/detect/readiness", "lib/detect/readiness-rule.ts", "lib/views/readiness.ts"]);
    expect(results.length).toBeGreaterThan(10);
    expect(results.flatMap((r) => r.messages.map((m) => `${r.filePath}: ${m.ruleId}: ${m.message}`))).toEqual([]);
  });
});
