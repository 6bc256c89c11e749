// The previous version of Gapwatch, checked out beside this one so that the bench measures both in the same run on
// the same machine (issue 32: "every figure printed beside its target, with the previous version's figure measured
// in the same run"). Which commit is "previous" is written in bench/previous-version (first word of its first
// line that is not a comment); `npm run bench -- --previous <ref>` overrides it, `--previous none` skips it.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { repoRoot } from "@/lib/sandbox/paths";

/** A detached git worktree of the previous version, sharing this checkout's node_modules. */
export interface PreviousVersion {
  /** The ref as asked for, and the commit it names. */
  ref: string;
  commit: string;
  /** The worktree's root: its scripts run from there with its own sources. */
  root: string;
}

/** The ref in bench/previous-version, or null when the file names none. */
export function readPreviousRef(): string | null {
  const file = path.join(repoRoot, "bench", "previous-version");
  if (!existsSync(file)) return null;
  const line = readFileSync(file, "utf8").split("\n").map((l) => l.trim()).find((l) => l !== "" && !l.startsWith("#"));
  return line?.split(/\s+/)[0] ?? null;
}

/**
 * Checks `ref` out into a temporary detached worktree (git worktree add) and links this checkout's node_modules into
 * it (the dependencies of both versions are the same packages; a version that needed others would fail to start
 * and the bench says so). `removePreviousVersion` takes it away again.
 */
export function checkOutPreviousVersion(ref: string): PreviousVersion {
  const git = (...args: string[]) => execFileSync("git", args, { cwd: repoRoot, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
  let commit: string;
  try {
    commit = git("rev-parse", "--verify", `${ref}^{commit}`);
  } catch {
    throw new Error(`the previous version "${ref}" is not a commit of this clone (bench/previous-version or --previous): ` +
      "fetch it, name another, or pass --previous none");
  }
  const root = path.join(mkdtempSync(path.join(os.tmpdir(), "gapwatch-previous-")), "gapwatch");
  git("worktree", "add", "--detach", root, commit);
  symlinkSync(path.join(repoRoot, "node_modules"), path.join(root, "node_modules"), "dir");
  return { ref, commit: commit.slice(0, 12), root };
}

/** Removes the worktree (and git's record of it). */
export function removePreviousVersion(previous: PreviousVersion): void {
  execFileSync("git", ["worktree", "remove", "--force", previous.root], { cwd: repoRoot, stdio: "ignore" });
  rmSync(path.dirname(previous.root), { recursive: true, force: true });
}
