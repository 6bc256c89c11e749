import { describe, expect, it } from "vitest";
import { FindingType, rules } from "@/lib/detect";

describe("the rule registry (lib/detect/rules.ts)", () => {
  it("names every rule once", () => {
    const ids = rules.map((r) => r.id);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    expect(ids.every((id) => /^[a-z0-9]+(-[a-z0-9]+)*$/.test(id))).toBe(true);
  });

  it("gives every finding type exactly one rule", () => {
    const owners = new Map<string, string[]>();
    for (const rule of rules) for (const type of rule.types) owners.set(type, [...(owners.get(type) ?? []), rule.id]);
    expect(Object.values(FindingType).filter((type) => owners.get(type)?.length !== 1)).toEqual([]);
    expect([...owners.keys()].filter((type) => !(Object.values(FindingType) as string[]).includes(type))).toEqual([]);
  });
});
