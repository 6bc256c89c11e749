import { describe, expect, it } from "vitest";
import { readRole } from "@/lib/config/role";

const sqlite = { kind: "sqlite" as const };
const postgres = { kind: "postgres" as const, url: "postgres://gapwatch@127.0.0.1:5432/gapwatch" };

describe("GAPWATCH_ROLE", () => {
  it("is all by default, and collector or web with a PostgreSQL store", () => {
    expect(readRole(sqlite, {})).toBe("all");
    expect(readRole(sqlite, { GAPWATCH_ROLE: "all" })).toBe("all");
    expect(readRole(postgres, { GAPWATCH_ROLE: "collector" })).toBe("collector");
    expect(readRole(postgres, { GAPWATCH_ROLE: "web" })).toBe("web");
  });

  it("names the allowed values when the value is not one of them", () => {
    expect(() => readRole(postgres, { GAPWATCH_ROLE: "worker" })).toThrow("environment variable GAPWATCH_ROLE: must be all (one process does everything), collector or web");
  });

  it("refuses collector and web with the SQLite store, saying that they share one PostgreSQL store", () => {
    for (const role of ["collector", "web"]) {
      expect(() => readRole(sqlite, { GAPWATCH_ROLE: role })).toThrow(
        `GAPWATCH_ROLE=${role} needs store.kind postgres (the collector and web processes share one PostgreSQL store); the config has store.kind sqlite: set GAPWATCH_ROLE=all or configure \`store: { kind: postgres, url: \${GAPWATCH_DATABASE_URL} }\``,
      );
    }
  });
});
