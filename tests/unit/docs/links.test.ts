import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { listHeadingAnchors, listRelativeLinks } from "./markdown-links";

const root = process.cwd();

/** README.md and every Markdown file under docs/, relative to the repository root. */
function listDocFiles(): string[] {
  const docs = readdirSync(path.join(root, "docs"), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".md"))
    .map((f) => path.join("docs", f));
  return ["README.md", ...docs.sort()];
}

/** What is wrong with one link of `file`, or null when its file (and anchor, for a Markdown target) exists. */
function findBrokenLink(file: string, target: string): string | null {
  const [filePart = "", anchor] = target.split("#", 2);
  const resolved = filePart === "" ? path.join(root, file) : path.resolve(root, path.dirname(file), decodeURI(filePart));
  if (!resolved.startsWith(root + path.sep)) return "points outside the repository";
  if (!existsSync(resolved)) return `no such file ${path.relative(root, resolved)}`;
  if (anchor === undefined || !resolved.endsWith(".md") || statSync(resolved).isDirectory()) return null;
  const anchors = listHeadingAnchors(readFileSync(resolved, "utf8"));
  return anchors.has(decodeURIComponent(anchor)) ? null : `no heading #${anchor} in ${path.relative(root, resolved)}`;
}

describe("links in README.md and docs/", () => {
  it("finds the documents and their links", () => {
    const files = listDocFiles();
    expect(files).toContain("docs/configuration.md");
    expect(files.flatMap((f) => listRelativeLinks(readFileSync(path.join(root, f), "utf8"))).length).toBeGreaterThan(20);
  });

  it("every relative link and image points at a file (and heading) of the repository that exists", () => {
    const broken = listDocFiles().flatMap((file) =>
      listRelativeLinks(readFileSync(path.join(root, file), "utf8")).flatMap(({ target, line }) => {
        const problem = findBrokenLink(file, target);
        return problem === null ? [] : [`${file}:${line} ${target}: ${problem}`];
      }),
    );
    expect(broken).toEqual([]);
  });
});
