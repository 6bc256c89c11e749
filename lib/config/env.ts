import path from "node:path";
import { z } from "zod";
import { ConfigError } from "@/lib/errors";

/** Environment variables by name (process.env or a test's own). */
export type EnvVars = Record<string, string | undefined>;

/**
 * The one validated view of Gapwatch's environment variables (server side only). Every variable
 * is listed in .env.example.
 */
const envSchema = z.object({
  GAPWATCH_CONFIG: z.string().default("gapwatch.config.yaml"),
  GAPWATCH_DB: z.string().optional(),
  GAPWATCH_HOME: z.string().optional(),
  GAPWATCH_LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  GAPWATCH_DISABLE_COLLECTOR: z.enum(["0", "1"]).default("0"),
  GAPWATCH_ROLE: z.enum(["all", "collector", "web"], { error: "must be all (one process does everything), collector or web" }).default("all"),
});

export type GapwatchEnv = z.infer<typeof envSchema>;

export function readEnv(env: EnvVars = process.env): GapwatchEnv {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`environment variable ${String(issue.path[0])}: ${issue.message}`);
  }
  return parsed.data;
}

/** Absolute path of the config file. */
export function configPath(env: GapwatchEnv = readEnv()): string {
  return path.resolve(env.GAPWATCH_CONFIG);
}
