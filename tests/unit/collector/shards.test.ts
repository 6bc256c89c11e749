import { describe, expect, it } from "vitest";
import { shardOf } from "@/lib/collector/shards";

/** Kafka's Utils.murmur2 test vectors (UtilsTest.testMurmur2), made positive as BuiltInPartitioner does. */
const kafkaVectors: [string, number][] = [
  ["21", 1_173_551_340],
  ["foobar", 1_357_151_166],
  ["a-little-bit-long-string", 1_161_502_112],
  ["a-little-bit-longer-string", 661_178_819],
  ["lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8", 2_088_585_677],
  ["abc", 479_470_107],
];

describe("shardOf", () => {
  it("is Kafka's toPositive(murmur2(key)): with 2^31 - 1 shards the shard is the hash itself", () => {
    expect(kafkaVectors.map(([key]) => shardOf(key, 2_147_483_647))).toEqual(kafkaVectors.map(([, hash]) => hash));
  });

  it("maps fixed flow ids to fixed shards of 12 (the hash modulo the shard count)", () => {
    expect(["21", "foobar", "abc"].map((k) => shardOf(k, 12))).toEqual([1_173_551_340 % 12, 1_357_151_166 % 12, 479_470_107 % 12]);
    expect(shardOf("east->west", 12)).toBe(shardOf("east->west", 12));
    expect(shardOf("east->west", 1)).toBe(0);
  });

  it("spreads 1,200 flow ids over 12 shards with every shard holding between 60 and 140", () => {
    const counts = new Array<number>(12).fill(0);
    for (let i = 0; i < 1200; i++) counts[shardOf(`cluster-${i}->dr-${i}`, 12)]! += 1;
    expect(counts.reduce((a, b) => a + b, 0)).toBe(1200);
    expect(Math.min(...counts)).toBeGreaterThanOrEqual(60);
    expect(Math.max(...counts)).toBeLessThanOrEqual(140);
  });
});
