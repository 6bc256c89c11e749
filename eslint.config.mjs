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
  ["lib/detect"],
  ["lib/translation"],
  ["lib/audit"],
  ["lib/store"],
  ["lib/alerts"],
  ["lib/pipeline"],
  ["lib/views", "lib/auth", "lib/api"],
  ["app", "components"],
];

/** One no-restricted-imports config per layer, naming every layer above it. */
const layerRules = layers.map((own, index) => {
  const above = layers.slice(index + 1).flat();
  const importNames = above.flatMap((dir) => {
    const name = `@/${dir.replace(/\.ts$/, "")}`;
    return [name, `${name}/**`];
  });
  return {
    files: own.map((dir) => (dir.endsWith(".ts") ? dir : `${dir}/**`)),
    rules: {
      "no-restricted-imports": above.length === 0 ? "off" : ["error", {
        patterns: [{ group: importNames, message: `${own.join(", ")} must not import a higher layer (ARCHITECTURE.md: layers import downward only)` }],
      }],
    },
  };
});

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
];

export default config;
