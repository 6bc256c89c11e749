import { describe, expect, it } from "vitest";
import { internFlowPartitionKey, internPartitionName, internPrefixedPartitionKey } from "@/lib/collector/partition-keys";
import { flowPartitionKey } from "@/lib/collector/types";

describe("interned partition keys", () => {
  it("gives exactly the template literals' strings, for names given as any string objects", () => {
    const topic = ["ord", "ers"].join("");
    const key = internFlowPartitionKey("east->west", topic, 7);
    expect(key).toBe("east->west|orders|7");
    expect(flowPartitionKey("east->west", "orders", 7)).toBe(key);
    expect(internFlowPartitionKey("east->west", "orders", 8)).toBe("east->west|orders|8");
    expect(internFlowPartitionKey("south->west", "orders", 7)).toBe("south->west|orders|7");
    expect(internPartitionName(topic, 7)).toBe("orders/7");
    expect(internPartitionName("orders", 12)).toBe("orders/12");
    expect(internPrefixedPartitionKey("east->west|g1|", topic, 3)).toBe("east->west|g1|orders|3");
    expect(internPrefixedPartitionKey(["east->west|", "g1|"].join(""), "orders", 3)).toBe("east->west|g1|orders|3");
  });

  it("builds, without interning, keys of partition numbers no Kafka partition has", () => {
    expect(internFlowPartitionKey("f", "t", -1)).toBe("f|t|-1");
    expect(internPartitionName("t", 1.5)).toBe("t/1.5");
    expect(internPrefixedPartitionKey("f|g|", "t", 2_000_000)).toBe("f|g|t|2000000");
  });
});
