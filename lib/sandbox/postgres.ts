/**
 * A throwaway PostgreSQL server for tests and demos: Debian's `postgresql` package (binaries in
 * /usr/lib/postgresql/<major>/bin), a cluster made with `initdb` under `<GAPWATCH_HOME or .gapwatch>/postgres-<port>`,
 * listening on a free loopback port with its unix socket inside that folder, stopped by PID (fast shutdown) and
 * removed afterwards. initdb and postgres refuse to run as root: as root they run as the `postgres` OS user, which
 * owns the folder.
 */
import { spawn, spawnSync } from "node:child_process";
import { chownSync, closeSync, existsSync, mkdirSync, openSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { getLogger } from "@/lib/logger";
import { findFreePort } from "./free-port";
import { gapwatchDir } from "./paths";
import { sleep, tailFile } from "./processes";

const log = getLogger("sandbox.postgres");
const debianRoot = "/usr/lib/postgresql";

/** A running throwaway server. */
export interface PostgresServer {
  /** postgres://gapwatch@127.0.0.1:<port>/postgres (trust authentication: no password). */
  url: string;
  port: number;
  pid: number;
  dir: string;
  /** Fast shutdown by PID (SIGINT; SIGKILL after 15 s), then the folder is removed. */
  stop(): Promise<void>;
}

/** The bin folder of the newest PostgreSQL Debian installed, or null. */
export function findPostgresBin(): string | null {
  if (!existsSync(debianRoot)) return null;
  const majors = readdirSync(debianRoot).filter((d) => /^\d+$/.test(d) && existsSync(path.join(debianRoot, d, "bin", "initdb")));
  const newest = majors.sort((a, b) => Number(b) - Number(a))[0];
  return newest === undefined ? null : path.join(debianRoot, newest, "bin");
}

/** uid/gid of the `postgres` OS user when we are root (initdb refuses root), else null (run as ourselves). */
function serverUser(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const id = (flag: string) => Number(spawnSync("id", [flag, "postgres"], { encoding: "utf8" }).stdout.trim());
  const uid = id("-u");
  const gid = id("-g");
  if (!Number.isInteger(uid) || uid <= 0) throw new Error("running as root, and there is no `postgres` OS user to run initdb and postgres as");
  return { uid, gid };
}

/** Creates a cluster, starts it on a free loopback port and waits until it accepts connections (deadline 60 s). */
export async function startPostgres(): Promise<PostgresServer> {
  const bin = findPostgresBin();
  if (bin === null) throw new Error(`no PostgreSQL under ${debianRoot}; install Debian's package: apt-get install -y postgresql`);
  const user = serverUser();
  const port = await findFreePort();
  const asUser = user ? { uid: user.uid, gid: user.gid } : {};
  const dir = makeClusterDir(path.join(gapwatchDir, `postgres-${port}`), port, user);
  const data = path.join(dir, "data");
  const logFile = path.join(dir, "postgres.log");
  const init = spawnSync(path.join(bin, "initdb"), ["-D", data, "-U", "gapwatch", "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync"], {
    ...asUser, encoding: "utf8", cwd: dir,
  });
  if (init.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`initdb failed (exit ${init.status}): ${init.stderr || init.stdout}`);
  }
  const fd = openSync(logFile, "a");
  if (user) chownSync(logFile, user.uid, user.gid);
  // Throwaway data: durability settings off for speed (a crash loses the test's database, nothing else).
  const child = spawn(path.join(bin, "postgres"), [
    "-D", data, "-p", String(port), "-c", "listen_addresses=127.0.0.1", "-c", `unix_socket_directories=${dir}`,
    "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off", "-c", "max_connections=50",
  ], { ...asUser, cwd: dir, detached: true, stdio: ["ignore", fd, fd] });
  closeSync(fd);
  child.unref();
  if (child.pid === undefined) throw new Error("could not start postgres");
  const pid = child.pid;
  let exited = false;
  const exit = new Promise<void>((resolve) =>
    child.once("exit", () => {
      exited = true;
      resolve();
    }),
  );
  log.info({ pid, port, dir }, "started postgres");
  const url = `postgres://gapwatch@127.0.0.1:${port}/postgres`;
  const stop = async () => {
    if (!exited) {
      process.kill(pid, "SIGINT");
      const deadline = Date.now() + 15_000;
      while (!exited && Date.now() < deadline) await Promise.race([exit, sleep(100)]);
      if (!exited) process.kill(pid, "SIGKILL");
      await exit;
      log.info({ pid }, "stopped postgres");
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exited) throw new Error(`postgres exited at start:\n${tailFile(logFile)}`);
    if (await runStatement(url, "SELECT 1").then(() => true, () => false)) return { url, port, pid, dir, stop };
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`postgres not ready after 60 s:\n${tailFile(logFile)}`);
    }
    await sleep(200);
  }
}

/**
 * The cluster's folder, owned by the server's user. Under /tmp instead when that user cannot write the wanted one
 * (e.g. a clone under root's 0700 home) or its socket path would pass the 107 bytes a unix socket name may hold.
 */
function makeClusterDir(wanted: string, port: number, user: { uid: number; gid: number } | null): string {
  const prepare = (dir: string) => {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    if (user) chownSync(dir, user.uid, user.gid);
    return dir;
  };
  const writable = (dir: string) => spawnSync("test", ["-w", dir], user ? { uid: user.uid, gid: user.gid } : {}).status === 0;
  const dir = prepare(wanted);
  if (`${dir}/.s.PGSQL.${port}`.length <= 100 && writable(dir)) return dir;
  rmSync(dir, { recursive: true, force: true });
  const fallback = prepare(path.join(os.tmpdir(), `gapwatch-postgres-${port}`));
  log.info({ wanted, dir: fallback }, "the postgres user cannot use the wanted folder (or its socket path is too long); using /tmp");
  return fallback;
}

async function runStatement(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
