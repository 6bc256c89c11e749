import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { listRelativeLinks } from "./markdown-links";

const readme = readFileSync(path.join(process.cwd(), "README.md"), "utf8");

describe("README.md as the front door", () => {
  it("stays short enough to read at 3 a.m. (at most 250 lines)", () => {
    expect(readme.split("\n").length).toBeLessThanOrEqual(250);
  });

  it("links to every document under docs/", () => {
    const linked = new Set(listRelativeLinks(readme).map((l) => l.target.split("#")[0]));
    const docs = readdirSync(path.join(process.cwd(), "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`);
    expect(docs.filter((doc) => !linked.has(doc))).toEqual([]);
  });
});
