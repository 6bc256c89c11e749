import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const apiDir = path.join(process.cwd(), "app", "api");

/** Every `METHOD /api/…` the route handlers under app/api export, paths written as docs/api.md writes them. */
function listRoutes(): string[] {
  const files = readdirSync(apiDir, { recursive: true, encoding: "utf8" }).filter((f) => path.basename(f) === "route.ts");
  return files.flatMap((file) => {
    const route = `/api/${path.dirname(file).split(path.sep).join("/")}`.replace(/\[([^\]]+)\]/g, "{$1}").replace(/\/\.$/, "");
    const source = readFileSync(path.join(apiDir, file), "utf8");
    const methods = [...source.matchAll(/export (?:async )?function (GET|POST|PUT|PATCH|DELETE)\b/g)].map((m) => m[1]!);
    return methods.map((method) => `${method} ${route}`);
  });
}

describe("docs/api.md against app/api", () => {
  it("has a heading for every route and method the app serves", () => {
    const routes = listRoutes();
    expect(routes).toContain("GET /api/flows/{flow}/groups/{group}/failover.csv");
    const headings = readFileSync(path.join(process.cwd(), "docs", "api.md"), "utf8")
      .split("\n").filter((line) => line.startsWith("#"));
    const missing = routes.filter((route) => {
      const [method, routePath] = route.split(" ");
      return !headings.some((h) => h.includes(`\`${route}\``) || (h.includes(`\`${method} `) && h.includes(` ${routePath}\``)));
    });
    expect(missing, "routes without a section in docs/api.md").toEqual([]);
  });
});
