import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";

/**
 * Layers, lowest first (ARCHITECTURE.md): a module may import its own layer and those below, never one above.
 * Each entry: the folders (or files) of one layer, as `lib/<name>`.
 */
const layers = [
  ["lib/errors.ts", "lib/format.ts", "lib/utils.ts", "lib/logger"],
  ["lib/config"],
  ["lib/kafka", "lib/connect", "lib/mm2"],
  ["lib/sandbox"],
  ["lib/collector"],
  ["lib/translation"],
  ["lib/audit"],
  ["lib/detect"],
  ["lib/store"],
  ["lib/alerts"],
  ["lib/pipeline"],
  ["lib/views", "lib/auth", "lib/api"],
  ["app", "components"],
];

/**
 * The findings vocabulary (lib/detect/types.ts: Finding, FindingType, SeverityName; it imports only lower layers):
 * the pure models below the engine (lib/translation, lib/audit) may name findings and alert types. Any other module
 * of the engine is above them.
 */
const engineExceptVocabulary = { regex: "^@/lib/detect(?!/types$)(/.*)?$" };

/**
 * Only the engine (lib/detect) makes findings and readiness checks: elsewhere, importing the runtime `Severity` or
 * what a rule is made of (`Rule`, `StatelessRule`, `StatefulRule`, `RuleOutput`, `RuleCycle`, `UnknownTest`), or
 * building an object with both `severity` and `observedAt` (a Finding) is a rule outside the engine, and importing
 * what a readiness check is made of (`ReadinessRule`, `ReadinessOutcome`, readiness/outcome.ts) or building an object
 * with both `title` and `check` (a ReadinessRule) is a readiness check outside it (docs/development.md "Add an alert",
 * "Add a readiness check"). Only the cycle pipeline runs the rules (`runRules`, or `runDetectors`, the snapshot rules
 * alone): a second runner elsewhere would judge a cycle the pipeline did not, with memory it does not keep.
 */
const engineFolder = "lib/detect";
const ruleOutsideEngine =
  "rules live in lib/detect and are registered in lib/detect/rules.ts (docs/development.md \"Add an alert\")";
const readinessOutsideEngine =
  "readiness checks live in lib/detect/readiness and are registered in lib/detect/rules.ts readinessRules " +
  "(docs/development.md \"Add a readiness check\")";
const ruleRunner = "lib/pipeline/cycle-pipeline.ts";
const findingImports = ["@/lib/detect", "@/lib/detect/types"].map((name) => ({
  name,
  importNames: ["Severity"],
  message: `Severity is for making findings: ${ruleOutsideEngine}`,
}));
const ruleInterfaceImports = ["@/lib/detect", "@/lib/detect/rule"].map((name) => ({
  name,
  importNames: ["Rule", "StatelessRule", "StatefulRule", "RuleOutput", "RuleCycle", "UnknownTest"],
  message: `This is what a rule is made of: ${ruleOutsideEngine}`,
}));
const readinessImports = [
  {
    name: "@/lib/detect/readiness-rule",
    importNames: ["ReadinessRule", "ReadinessOutcome"],
    message: `This is for making readiness checks: ${readinessOutsideEngine}`,
  },
  { name: "@/lib/detect/readiness/outcome", message: `This is for making readiness checks: ${readinessOutsideEngine}` },
];
const engineOnlyImports = [...findingImports, ...ruleInterfaceImports, ...readinessImports];
const runnerImports = ["@/lib/detect", "@/lib/detect/engine"].map((name) => ({
  name,
  importNames: ["runRules", "runDetectors"],
  message: `The rules run once per cycle, in ${ruleRunner} (docs/development.md "Add an alert")`,
}));

/** One no-restricted-imports config: `paths` (names restricted by module) and `patterns` (modules restricted). */
function restrictImports(files, paths, patterns) {
  return { files, rules: { "no-restricted-imports": ["error", { paths, patterns }] } };
}

/**
 * One no-restricted-imports config per layer, naming every layer above it and the engine's own imports; the layer
 * holding the rule runner gets one more for that file, the same less the runner.
 */
const layerRules = layers.flatMap((own, index) => {
  const above = layers.slice(index + 1).flat();
  const importNames = above.filter((dir) => dir !== engineFolder).flatMap((dir) => {
    const name = `@/${dir.replace(/\.ts$/, "")}`;
    return [name, `${name}/**`];
  });
  const message = `${own.join(", ")} must not import a higher layer (ARCHITECTURE.md: layers import downward only)`;
  const patterns = above.length === 0 ? [] : [{ group: importNames, message }];
  if (above.includes(engineFolder)) patterns.push({ ...engineExceptVocabulary, message });
  const files = own.map((dir) => (dir.endsWith(".ts") ? dir : `${dir}/**`));
  if (own.includes(engineFolder)) return [restrictImports(files, [], patterns)];
  const layer = restrictImports(files, [...engineOnlyImports, ...runnerImports], patterns);
  const runsRules = own.some((dir) => ruleRunner.startsWith(`${dir}/`));
  return runsRules ? [layer, restrictImports([ruleRunner], engineOnlyImports, patterns)] : [layer];
});

/**
 * Scripts belong to no layer, but make no rule and run none either; the engine's benchmarks (scripts/bench) run and
 * wrap the registered rules to time them.
 */
const scriptRules = [
  { ...restrictImports(["scripts/**"], [...engineOnlyImports, ...runnerImports], []), ignores: ["scripts/bench/**"] },
  restrictImports(["scripts/bench/**"], [...findingImports, ...readinessImports], []),
];

/** Building a finding or a readiness check outside the engine (see ruleOutsideEngine, readinessOutsideEngine). */
const ruleConstruction = {
  files: ["lib/**", "app/**", "components/**", "scripts/**"],
  ignores: [`${engineFolder}/**`],
  rules: {
    "no-restricted-syntax": ["error", {
      selector: "ObjectExpression:has(> Property[key.name='severity']):has(> Property[key.name='observedAt'])",
      message: `This builds a Finding: ${ruleOutsideEngine}`,
    }, {
      selector: "ObjectExpression:has(> Property[key.name='title']):has(> Property[key.name='check'])",
      message: `This builds a readiness check: ${readinessOutsideEngine}`,
    }],
  },
};

const config = [
  ...nextVitals,
  ...nextTs,
  {
    ignores: [".next/**", ".gapwatch/**", "node_modules/**", "next-env.d.ts", "test-results/**", "playwright-report/**"],
  },
  {
    files: ["lib/**", "app/**", "components/**"],
    rules: {
      "no-console": "error",
      "@typescript-eslint/no-explicit-any": "error",
    },
  },
  ...layerRules,
  ...scriptRules,
  ruleConstruction,
];

export default config;
