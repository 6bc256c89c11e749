import { readFileSync } from "node:fs";
import { parseDocument } from "yaml";
import type { z } from "zod";
import { ConfigError } from "@/lib/errors";
import type { EnvVars } from "./env";
import { configSchema, type GapwatchConfig, type ParsedConfig } from "./schema";
import { resolveTlsMaterial } from "./tls";

/**
 * Reads, resolves and validates a config file. Every failure is a ConfigError whose message names
 * the file, the field (as a path like `clusters[1].bootstrap`) and what is wrong.
 */
export function loadConfigFile(file: string, env: EnvVars = process.env): GapwatchConfig {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new ConfigError(`${file}: cannot read the config file (${(err as NodeJS.ErrnoException).code ?? String(err)}); set GAPWATCH_CONFIG to its path`, { cause: err });
  }
  return parseConfigText(text, file, env);
}

/** Parses YAML text into a validated config, the TLS files it names read and checked (exported for tests). */
export function parseConfigText(text: string, file: string, env: EnvVars = process.env): GapwatchConfig {
  const config = validateConfigText(text, file, env);
  return {
    ...config,
    clusters: config.clusters.map(({ tls, ...c }, i) => {
      if (tls === undefined) return c;
      return { ...c, tls: typeof tls === "boolean" ? tls : resolveTlsMaterial(tls, `clusters[${i}].tls`, file) };
    }),
    connect: config.connect.map(({ tls, ...c }, i) => (tls === undefined ? c : { ...c, tls: resolveTlsMaterial(tls, `connect[${i}].tls`, file) })),
  };
}

/** Validates YAML text as a config without reading the PEM files it names (`npm run init` writes them later). */
export function validateConfigText(text: string, file: string, env: EnvVars = process.env): ParsedConfig {
  const doc = parseDocument(text, { prettyErrors: true });
  if (doc.errors.length > 0) {
    throw new ConfigError(`${file}: not valid YAML: ${doc.errors[0]!.message}`);
  }
  const raw: unknown = doc.toJS();
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    throw new ConfigError(`${file}: the top level must be a mapping with at least a \`clusters:\` list`);
  }
  const resolved = resolveEnvReferences(raw, [], file, env);
  const parsed = configSchema.safeParse(resolved);
  if (!parsed.success) throw new ConfigError(`${file}: ${describeIssues(parsed.error.issues)}`);
  return parsed.data;
}

/**
 * Replaces `${NAME}` in string values with the environment variable, or with the content of the file that `NAME_FILE`
 * names (a container's mounted secret, as Docker's and Kubernetes' `_FILE` convention; one trailing newline dropped);
 * unset variables, both set, and unreadable files are errors.
 */
function resolveEnvReferences(value: unknown, path: (string | number)[], file: string, env: EnvVars): unknown {
  if (typeof value === "string") {
    return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => readReference(name, env, `${file}: ${formatPath(path)}`));
  }
  if (Array.isArray(value)) return value.map((v, i) => resolveEnvReferences(v, [...path, i], file, env));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveEnvReferences(v, [...path, k], file, env)]));
  }
  return value;
}

/** The value of `${name}`: the variable, or the file its `_FILE` variable names; `where` names the setting. */
function readReference(name: string, env: EnvVars, where: string): string {
  const direct = env[name];
  const secretFile = env[`${name}_FILE`];
  if (direct !== undefined && secretFile !== undefined) {
    throw new ConfigError(`${where}: both ${name} and ${name}_FILE are set (the value refers to \${${name}}); set only one`);
  }
  if (direct !== undefined) return direct;
  if (secretFile === undefined) {
    throw new ConfigError(`${where}: environment variable ${name} is not set (the value refers to \${${name}}; ${name}_FILE may name a file holding it)`);
  }
  try {
    return readFileSync(secretFile, "utf8").replace(/\r?\n$/, "");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? String(err);
    throw new ConfigError(`${where}: cannot read ${name}_FILE=${secretFile} (${code}); mount the secret file or set ${name}`, { cause: err });
  }
}

function describeIssues(issues: z.core.$ZodIssue[]): string {
  return issues
    .slice(0, 5)
    .map((issue) => `${formatPath(issue.path as (string | number)[]) || "(top level)"}: ${issue.message}`)
    .join("; ");
}

function formatPath(path: (string | number)[]): string {
  return path.reduce<string>((acc, part) => (typeof part === "number" ? `${acc}[${part}]` : acc ? `${acc}.${part}` : part), "");
}
