import { existsSync, mkdirSync, renameSync } from "node:fs";
import path from "node:path";
import { capture } from "./tools";

/**
 * The image's only Debian packages: the C library and the C++ runtime that Node.js and better-sqlite3's native module
 * link against. No shell, no package manager, no CA bundle (Node.js carries Mozilla's roots; a private CA is given
 * with NODE_EXTRA_CA_CERTS), no tzdata (Node.js's ICU holds the time zones).
 */
export const rootfsPackages = ["libc6", "libgcc-s1", "libstdc++6"];
/** The Debian release the packages come from: the one these scripts are run on (glibc 2.36; Node.js 20 needs 2.28). */
export const debianSuite = "bookworm";
/** Removed from the extracted packages: documentation, locales, gconv modules and debugger helpers nothing loads. */
const trimmed = ["usr/share/doc", "usr/share/lintian", "usr/share/locale", "usr/share/gcc", "usr/share/gdb", "usr/lib/x86_64-linux-gnu/gconv", "etc/apt", "var/lib/apt", "var/cache/apt"];

/**
 * Makes (once; cached in `dir`) the image's root filesystem with Debian's mmdebstrap: variant `extract` unpacks only
 * `rootfsPackages` and their dependencies, runs no maintainer script, and writes a tarball.
 */
export async function ensureRootfs(dir: string, log: (line: string) => void): Promise<string> {
  const file = path.join(dir, `rootfs-${debianSuite}-${rootfsPackages.join("+")}.tar`);
  if (existsSync(file)) return file;
  mkdirSync(dir, { recursive: true });
  log(`Making the root filesystem with mmdebstrap (${debianSuite}: ${rootfsPackages.join(", ")})…`);
  const hook = `cd "$1" && rm -rf ${trimmed.join(" ")}`;
  const partial = `${file}.partial.tar`;
  await capture("mmdebstrap", ["--variant=extract", `--include=${rootfsPackages.join(",")}`, `--customize-hook=${hook}`, debianSuite, partial]);
  renameSync(partial, file);
  return file;
}
