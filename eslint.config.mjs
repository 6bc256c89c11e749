import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";

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
];

export default config;
