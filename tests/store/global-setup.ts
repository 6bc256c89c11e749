import type { TestProject } from "vitest/node";
import { startPostgres, type PostgresServer } from "@/lib/sandbox/postgres";

/**
 * One throwaway PostgreSQL server for the store project (lib/sandbox/postgres.ts): each test case creates its own
 * database on it. Stopped by PID, its folder removed, afterwards.
 */
let server: PostgresServer | null = null;

declare module "vitest" {
  export interface ProvidedContext {
    postgresUrl: string;
  }
}

export async function setup(project: TestProject): Promise<void> {
  const started = Date.now();
  server = await startPostgres();
  process.stderr.write(`[store] PostgreSQL up in ${((Date.now() - started) / 1000).toFixed(1)} s on port ${server.port} (pid ${server.pid})\n`);
  project.provide("postgresUrl", server.url);
}

export async function teardown(): Promise<void> {
  await server?.stop();
}
