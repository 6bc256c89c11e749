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

/** A rule object written outside the engine: what a rule is made of, from the module and from the engine's index. */
const ruleObjectElsewhere = `import type { Rule, StatefulRule } from "@/lib/detect";
import type { RuleCycle, RuleOutput, StatelessRule, UnknownTest } from "@/lib/detect/rule";
import { FindingType } from "@/lib/detect/types";

const carried: UnknownTest = "snapshot";

/** Emits nothing, yet is a rule. */
export const quietRule: StatelessRule = {
  id: "quiet",
  types: [FindingType.FLOW_CONFIG_WARNING],
  unknown: carried,
  run: (cycle: RuleCycle): RuleOutput => ({ findings: cycle.now < 0 ? [] : undefined }),
};
export type Any = Rule | StatefulRule<"committed">;
`;

/** A second runner of the rules, from the engine's module and its index. */
const runnerElsewhere = `import { runDetectors } from "@/lib/detect";
import { runRules } from "@/lib/detect/engine";

export const runners = [runRules, runDetectors];
`;

/** The messages no-restricted-imports gives for each name of `names` imported from `from`. */
function restricted(names: readonly string[], from: string, why: string): string[] {
  return names.map((name) => `no-restricted-imports: '${name}' import from '${from}' is restricted. ${why}`);
}

const ruleMadeOf = 'This is what a rule is made of: rules live in lib/detect and are registered in lib/detect/rules.ts (docs/development.md "Add an alert")';
const runOnce = 'The rules run once per cycle, in lib/pipeline/cycle-pipeline.ts (docs/development.md "Add an alert")';
const ruleInterfaceMessages = [
  ...restricted(["Rule", "StatefulRule"], "@/lib/detect", ruleMadeOf),
  ...restricted(["RuleCycle", "RuleOutput", "StatelessRule", "UnknownTest"], "@/lib/detect/rule", ruleMadeOf),
];
const runnerMessages = [...restricted(["runDetectors"], "@/lib/detect", runOnce), ...restricted(["runRules"], "@/lib/detect/engine", runOnce)];

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

  it("fails what a rule is made of (Rule, StatelessRule, StatefulRule, RuleOutput, RuleCycle, UnknownTest) outside lib/detect", { timeout: 120_000 }, async () => {
    const files = ["lib/views/quiet.ts", "lib/pipeline/quiet.ts", "lib/pipeline/cycle-pipeline.ts", "lib/alerts/quiet.ts", "app/quiet.ts", "scripts/quiet.ts"];
    for (const file of files) expect(await lintAt(file, ruleObjectElsewhere), file).toEqual(ruleInterfaceMessages);
    // The engine, and its benchmarks, which wrap the registered rules to time them (scripts/bench/rule-costs.ts).
    for (const file of ["lib/detect/quiet.ts", "scripts/bench/quiet.ts"]) expect(await lintAt(file, ruleObjectElsewhere), file).toEqual([]);
  });

  it("fails runRules and runDetectors anywhere but the cycle pipeline (and the engine's benchmarks)", { timeout: 120_000 }, async () => {
    for (const file of ["lib/views/runners.ts", "lib/pipeline/runners.ts", "lib/alerts/runners.ts", "app/runners.ts", "scripts/runners.ts"]) {
      expect(await lintAt(file, runnerElsewhere), file).toEqual(runnerMessages);
    }
    for (const file of ["lib/pipeline/cycle-pipeline.ts", "lib/detect/runners.ts", "scripts/bench/runners.ts"]) {
      expect(await lintAt(file, runnerElsewhere), file).toEqual([]);
    }
  });

  it("passes today's importers of the runner and the rule interface; the cycle pipeline keeps its layer rule", { timeout: 120_000 }, async () => {
    const importers = ["lib/pipeline/cycle-pipeline.ts", "lib/pipeline/rule-memory.ts", "lib/detect/index.ts", "lib/detect/rules.ts", "scripts/bench/rule-costs.ts", "scripts/bench/pipeline-compute.ts", "scripts/bench/heap-attribution.ts"];
    const results = await eslint.lintFiles(importers);
    expect(results).toHaveLength(importers.length);
    expect(results.flatMap((r) => r.messages.map((m) => `${r.filePath}: ${m.ruleId}: ${m.message}`))).toEqual([]);
    const above = 'import { healthView } from "@/lib/views/health";\nexport const view = healthView;\n';
    expect(await lintAt("lib/pipeline/cycle-pipeline.ts", above)).toEqual([
      "no-restricted-imports: '@/lib/views/health' import is restricted from being used by a pattern. lib/pipeline must not import a higher layer (ARCHITECTURE.md: layers import downward only)",
    ]);
  });
});
