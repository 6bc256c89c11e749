import pg from "pg";
import { getLogger } from "@/lib/logger";
import { stripUrlUserInfo } from "@/lib/logger/redact";

const log = getLogger("store.postgres");

/** The URL as logs may show it: scheme, host, port and database, never the user-info or query options. */
export function describeDatabaseUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return "an unparsable postgres URL";
  }
}

/** An error whose message (and cause) carries no user-info of a URL. */
export function redactError(err: unknown): Error {
  const message = err instanceof Error ? err.message : String(err);
  const code = (err as { code?: unknown }).code;
  return new Error(`PostgreSQL: ${stripUrlUserInfo(message)}${typeof code === "string" ? ` (${code})` : ""}`);
}

/**
 * A small pool (the pipeline writes one statement at a time; pages read beside it). int8 columns come back as
 * strings (pg's default), which BigInt() reads exactly; idle-client errors are logged, never thrown.
 */
export function createPool(url: string): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max: 4, idleTimeoutMillis: 30_000, connectionTimeoutMillis: 10_000 });
  pool.on("error", (err) => log.error({ err: redactError(err).message }, "idle PostgreSQL connection failed"));
  return pool;
}

/** Runs `body` in one transaction on one pooled connection; any error comes out redacted. */
export async function inTransaction<T>(pool: pg.Pool, body: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (err) {
    throw redactError(err);
  }
  // A checked-out client's connection can fail (the server restarts mid-write): pg emits 'error' on the client,
  // which the pool's handler does not cover, and an unhandled 'error' event would end the process.
  let broken: Error | undefined;
  const onError = (err: Error) => {
    broken = redactError(err);
    log.error({ err: broken.message }, "PostgreSQL connection failed during a transaction");
  };
  client.on("error", onError);
  try {
    await client.query("BEGIN");
    const result = await body(client);
    await client.query("COMMIT");
    return result;
  } catch (err) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw redactError(err);
  } finally {
    client.off("error", onError);
    // A broken connection is destroyed, not returned to the pool.
    client.release(broken);
  }
}

/** One statement outside a transaction (reads); errors come out redacted. */
export async function queryRows<R extends pg.QueryResultRow>(pool: pg.Pool, sql: string, values: unknown[] = []): Promise<R[]> {
  try {
    return (await pool.query<R>(sql, values)).rows;
  } catch (err) {
    throw redactError(err);
  }
}
