import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { planAcls } from "@/lib/acls/acl-rules";
import { renderStrimziUsers } from "@/lib/acls/render-acls";

const file = path.resolve(import.meta.dirname, "../../../deploy/strimzi/gapwatch-kafkauser.yaml");

describe("deploy/strimzi/gapwatch-kafkauser.yaml", () => {
  it("is exactly what `npm run acls -- --principal User:gapwatch --format strimzi` prints for clusters east and west", () => {
    const committed = readFileSync(file, "utf8");
    const body = committed.split("\n").filter((l, i, all) => !(l.startsWith("#") && all.slice(0, i).every((x) => x.startsWith("#"))));
    const clusters = [
      { alias: "east", bootstrap: ["127.0.0.1:9092"] },
      { alias: "west", bootstrap: ["127.0.0.1:9093"] },
    ];
    expect(body.join("\n")).toBe(renderStrimziUsers(planAcls({ clusters }), "User:gapwatch"));
  });
});
