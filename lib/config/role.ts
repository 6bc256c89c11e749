import { ConfigError } from "@/lib/errors";
import { readEnv, type EnvVars } from "./env";
import type { GapwatchConfig } from "./schema";

/**
 * What this process does (GAPWATCH_ROLE): `all` polls and serves (one machine), `collector` polls and publishes its
 * read model to the store, `web` serves pages and the API from the read models the collectors published.
 */
export type GapwatchRole = "all" | "collector" | "web";

/** The role of this process; collector and web share their data through PostgreSQL, so they require it. */
export function readRole(store: GapwatchConfig["store"], env: EnvVars = process.env): GapwatchRole {
  const role = readEnv(env).GAPWATCH_ROLE;
  if (role !== "all" && store.kind !== "postgres") {
    throw new ConfigError(
      `GAPWATCH_ROLE=${role} needs store.kind postgres (the collector and web processes share one PostgreSQL store); ` +
        `the config has store.kind ${store.kind}: set GAPWATCH_ROLE=all or configure \`store: { kind: postgres, url: \${GAPWATCH_DATABASE_URL} }\``,
    );
  }
  return role;
}
