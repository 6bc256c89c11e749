import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { validateConfigText } from "@/lib/config/load";
import { repoRoot } from "@/lib/sandbox/paths";

const chartDir = path.join(repoRoot, "deploy", "helm", "gapwatch");
const examplesDir = path.join(repoRoot, "deploy", "helm", "examples");
const readYaml = (file: string): Record<string, unknown> => parse(readFileSync(file, "utf8")) as Record<string, unknown>;

/** An environment that sets every `${NAME}` the text refers to, as a config loaded in a pod would have. */
function envFor(text: string): Record<string, string> {
  const names = [...text.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((m) => m[1]!);
  const value = (name: string) => (name === "GAPWATCH_DATABASE_URL" ? "postgres://u:p@pg:5432/gw" : `value-of-${name}-long-enough`);
  return Object.fromEntries(names.map((name) => [name, value(name)]));
}

describe("the Helm chart's files", () => {
  it("carries package.json's version as the chart version and appVersion (the image tag defaults to it)", () => {
    const { version } = JSON.parse(readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { version: string };
    const chart = readYaml(path.join(chartDir, "Chart.yaml"));
    expect(chart.version).toBe(version);
    expect(chart.appVersion).toBe(version);
  });

  it("renders the PrometheusRule from the same rules as deploy/prometheus/gapwatch-rules.yml", () => {
    const inChart = readFileSync(path.join(chartDir, "files", "gapwatch-rules.yml"), "utf8");
    expect(inChart).toBe(readFileSync(path.join(repoRoot, "deploy", "prometheus", "gapwatch-rules.yml"), "utf8"));
  });

  const examples = readdirSync(examplesDir).filter((name) => name.endsWith(".yaml")).sort();

  it("has the three values examples: all-in-one, split roles with PostgreSQL, Strimzi", () => {
    expect(examples).toEqual(["all-in-one.yaml", "split-postgres.yaml", "strimzi.yaml"]);
  });

  it.each(examples)("%s holds a Gapwatch config that passes the config schema, with store.kind matching it", (name) => {
    const values = readYaml(path.join(examplesDir, name));
    const text = stringify(values.config);
    const config = validateConfigText(text, `${name} config`, envFor(text));
    expect(config.clusters.length).toBeGreaterThan(0);
    expect((values.store as { kind: string }).kind).toBe(config.store.kind);
    if (values.role === "split") expect(config.store.kind).toBe("postgres");
  });
});
