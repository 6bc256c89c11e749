import { murmur2 } from "@platformatic/kafka";

/**
 * Kafka's murmur2 of a key's UTF-8 bytes (Utils.murmur2), as the client's own partitioner computes it, as a signed
 * 32-bit int. The client's LRU cache of the last 1,000 keys is on: the keys hashed are a few flow ids and cluster
 * aliases, asked for once per finding.
 */
export function hashKey(key: string): number {
  return murmur2(key, true);
}
