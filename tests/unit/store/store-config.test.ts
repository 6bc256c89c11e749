import { describe, expect, it } from "vitest";
import { configSchema } from "@/lib/config/schema";

const clusters = [{ alias: "east", bootstrap: ["localhost:9092"] }];
const storeIssues = (store: unknown) => {
  const parsed = configSchema.safeParse({ clusters, store });
  return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
};

describe("store config", () => {
  it("defaults to sqlite", () => {
    expect(configSchema.parse({ clusters }).store).toEqual({ kind: "sqlite" });
  });

  it("takes a postgres url", () => {
    const url = "postgres://gapwatch:s3cret@db.example:5432/gapwatch";
    expect(configSchema.parse({ clusters, store: { kind: "postgres", url } }).store).toEqual({ kind: "postgres", url });
  });

  it("says what to set when postgres has no url", () => {
    expect(storeIssues({ kind: "postgres" })).toEqual([
      "store.url: store kind postgres needs a url: set `url: ${GAPWATCH_DATABASE_URL}` and export GAPWATCH_DATABASE_URL=postgres://user:password@host:5432/gapwatch",
    ]);
  });

  it("rejects a url that is not postgres:// without repeating it (it may hold a password)", () => {
    const issues = storeIssues({ kind: "postgres", url: "mysql://root:hunter2@db/x" });
    expect(issues).toEqual(["store.url: the store url must start with postgres:// or postgresql://"]);
    expect(issues.join(" ")).not.toContain("hunter2");
  });

  it("rejects settings of the other kind and unknown keys", () => {
    expect(storeIssues({ kind: "postgres", url: "postgresql://h/db", path: "/tmp/x.db" })).toEqual([
      "store.path: path is for store kind sqlite; a postgres store takes only url",
    ]);
    expect(storeIssues({ url: "postgres://h/db" })).toEqual(["store.url: url is for store kind postgres; set `kind: postgres` or remove url"]);
    expect(storeIssues({ kind: "mysql" })).toHaveLength(1);
    expect(storeIssues({ kind: "sqlite", file: "x" })).toHaveLength(1);
  });
});
