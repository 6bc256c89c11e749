/**
 * Hostile records (issue 15 item 3): mutated records — truncated, wrong versions, huge lengths,
 * random bytes, valid-looking out-of-range offsets, broken JSON — fed through every decoder of MM2's
 * internal topics and Connect's topics, in batches as the collector tails them, and counted at the
 * collector layer (countMalformed, which logs each batch's bad offsets). A crash is an exception
 * escaping decodeAll; an accepted record must say exactly what its bytes say (the binary ones are
 * re-encoded and compared byte for byte).
 */
import { countMalformed } from "@/lib/collector/malformed-records";
import {
  decodeAll,
  decodeCheckpoint,
  decodeConnectorConfig,
  decodeConnectStatus,
  decodeHeartbeat,
  decodeMirrorSourcePosition,
  decodeOffsetSync,
  encodeCheckpointKey,
  encodeCheckpointValue,
  encodeHeartbeatKey,
  encodeHeartbeatValue,
  encodeOffsetSyncKey,
  encodeOffsetSyncValue,
} from "@/lib/mm2";
import type { Checkpoint, Heartbeat, OffsetSync, RawRecord } from "@/lib/mm2/types";

/** One decoder under test: the topic it reads, valid seed records, and a check of what it accepted. */
interface FuzzTarget {
  topic: string;
  decode: (key: Buffer | null, value: Buffer | null) => unknown;
  seeds: readonly RawRecord[];
  /** Null when the decoded value is exactly what the record's bytes say, else what differs. */
  verify: (record: RawRecord, decoded: unknown) => string | null;
}

/** What a fuzz run saw. */
export interface FuzzReport {
  records: number;
  /** Exceptions that escaped a decoder (must be 0), with the first few records that caused them. */
  crashes: number;
  crashSamples: { topic: string; key: string | null; value: string | null; error: string }[];
  decoded: number;
  malformed: number;
  /** Well-formed records of another kind sharing the topic (ForeignRecordError). */
  foreign: number;
  /** Records decodeAll lost track of: decoded + malformed + foreign ≠ records (must be 0). */
  unaccounted: number;
  /** Accepted records whose decoded value differs from their bytes (must be 0). */
  misread: number;
  /** Malformed records per cluster/topic as the collector counted them. */
  countedByCollector: Record<string, number>;
  byTopic: Record<string, { records: number; decoded: number; malformed: number; foreign: number }>;
}

/** mulberry32: a small seeded PRNG, so a run is reproducible from its seed. */
export function createRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const json = (value: unknown) => Buffer.from(JSON.stringify(value));
const sameBytes = (a: Buffer | null, b: Buffer) => a !== null && a.equals(b);

const syncs: OffsetSync[] = [
  { topic: "orders", partition: 2, upstream: 1200n, downstream: 1180n },
  { topic: "t", partition: 0, upstream: 0n, downstream: 0n },
];
const checkpoints: Checkpoint[] = [{ group: "billing", topic: "east.orders", partition: 5, upstream: 700n, downstream: 690n, metadata: "" }];
const heartbeats: Heartbeat[] = [{ sourceClusterAlias: "east", targetClusterAlias: "west", timestampMs: 1_764_000_000_000 }];

const targets: readonly FuzzTarget[] = [
  {
    topic: "mm2-offset-syncs.west.internal",
    decode: decodeOffsetSync,
    seeds: syncs.map((s) => ({ key: encodeOffsetSyncKey(s), value: encodeOffsetSyncValue(s) })),
    verify: (r, d) => {
      const s = d as OffsetSync;
      return sameBytes(r.key, encodeOffsetSyncKey(s)) && sameBytes(r.value, encodeOffsetSyncValue(s)) ? null : "OffsetSync does not re-encode to its bytes";
    },
  },
  {
    topic: "east.checkpoints.internal",
    decode: decodeCheckpoint,
    seeds: checkpoints.map((c) => ({ key: encodeCheckpointKey(c), value: encodeCheckpointValue(c) })),
    verify: (r, d) => {
      const c = d as Checkpoint;
      return sameBytes(r.key, encodeCheckpointKey(c)) && sameBytes(r.value, encodeCheckpointValue(c)) ? null : "Checkpoint does not re-encode to its bytes";
    },
  },
  {
    topic: "heartbeats",
    decode: decodeHeartbeat,
    seeds: heartbeats.map((h) => ({ key: encodeHeartbeatKey(h), value: encodeHeartbeatValue(h) })),
    verify: (r, d) => {
      const h = d as Heartbeat;
      return sameBytes(r.key, encodeHeartbeatKey(h)) && sameBytes(r.value, encodeHeartbeatValue(h)) ? null : "Heartbeat does not re-encode to its bytes";
    },
  },
  {
    topic: "connect-offsets",
    decode: decodeMirrorSourcePosition,
    seeds: [
      { key: json(["mm2-east-west-source", { cluster: "east", topic: "orders", partition: 2 }]), value: json({ offset: 1199 }) },
      { key: json(["mm2-east-west-source", { cluster: "east", partition: 0, topic: "t" }]), value: Buffer.from('{"offset":9223372036854775807}') },
      { key: json(["other-connector", { file: "/tmp/x" }]), value: json({ position: 1 }) },
    ],
    verify: (_, d) => {
      const p = d as { partition: number; offset: bigint | null };
      return Number.isSafeInteger(p.partition) && p.partition >= 0 && (p.offset === null || (p.offset >= 0n && p.offset < 2n ** 63n)) ? null : "position out of range";
    },
  },
  {
    topic: "connect-status",
    decode: decodeConnectStatus,
    seeds: [
      { key: Buffer.from("status-connector-mm2-east-west-source"), value: json({ state: "RUNNING", trace: null, worker_id: "w1:8083", generation: 3 }) },
      { key: Buffer.from("status-task-mm2-east-west-source-0"), value: json({ state: "FAILED", trace: "org.apache.kafka.connect.errors.DataException: x", worker_id: "w1:8083", generation: 3 }) },
      { key: Buffer.from("status-task-mm2-east-west-source-1"), value: null },
      { key: Buffer.from("status-topic-orders:connector-x"), value: json({ topic: { name: "orders" } }) },
    ],
    verify: (_, d) => {
      const s = d as { kind: string; taskId?: number };
      return s.kind === "connector" || (s.kind === "task" && Number.isSafeInteger(s.taskId) && s.taskId! >= 0) ? null : "status of an unknown kind or task id";
    },
  },
  {
    topic: "mm2-configs.east.internal",
    decode: decodeConnectorConfig,
    seeds: [
      { key: Buffer.from("connector-MirrorSourceConnector"), value: json({ properties: { "connector.class": "org.apache.kafka.connect.mirror.MirrorSourceConnector", topics: ".*" } }) },
      { key: Buffer.from("connector-MirrorSourceConnector"), value: null },
      { key: Buffer.from("target-state-MirrorSourceConnector"), value: json({ state: "STARTED" }) },
    ],
    verify: (_, d) => {
      const c = d as { connector: string; config: Record<string, unknown> | null };
      return c.config === null || Object.values(c.config).every((v) => typeof v === "string") ? null : "config value that is not a string";
    },
  },
];

/** Names of the decoders a run covers, with the topic each reads (for the report). */
export const fuzzedTopics = targets.map((t) => t.topic);

type Mutator = (record: RawRecord, random: () => number) => RawRecord;

const pick = <T>(items: readonly T[], random: () => number): T => items[Math.floor(random() * items.length)]!;
const randomBytes = (length: number, random: () => number) => Buffer.from(Array.from({ length }, () => Math.floor(random() * 256)));
const copy = (b: Buffer | null) => (b === null ? null : Buffer.from(b));
const int64s = [-1n, -(2n ** 63n), 2n ** 63n - 1n, 2n ** 62n, 0n, 2n ** 53n + 1n];
const jsonNumbers = ["-1", "1e309", "9223372036854775808", "1.5", "-0", "18446744073709551616", "null", '"12"', "[]", "{}", "0x10", "00"];

/** Cuts a key or value short (possibly to zero bytes). */
const truncate: Mutator = (r, random) => {
  const side = random() < 0.5 ? "key" : "value";
  const bytes = r[side];
  if (bytes === null || bytes.length === 0) return { ...r, [side]: Buffer.alloc(0) };
  return { ...r, [side]: bytes.subarray(0, Math.floor(random() * bytes.length)) };
};
/** A random INT16 where a version (or a string length) is. */
const wrongVersion: Mutator = (r, random) => {
  const side = random() < 0.7 ? "value" : "key";
  const bytes = copy(r[side]);
  if (bytes === null || bytes.length < 2) return r;
  bytes.writeInt16BE(pick([1, -1, 2, 0x7fff, -0x8000, Math.floor(random() * 65536) - 32768], random), 0);
  return { ...r, [side]: bytes };
};
/** A huge or negative STRING length at a random position. */
const hugeLength: Mutator = (r, random) => {
  const side = random() < 0.5 ? "key" : "value";
  const bytes = copy(r[side]);
  if (bytes === null || bytes.length < 2) return r;
  bytes.writeInt16BE(pick([0x7fff, -2, -1, 0x4000], random), Math.floor(random() * (bytes.length - 1)));
  return { ...r, [side]: bytes };
};
const randomRecord: Mutator = (_, random) => ({
  key: random() < 0.1 ? null : randomBytes(Math.floor(random() * 64), random),
  value: random() < 0.1 ? null : randomBytes(Math.floor(random() * 64), random),
});
const flipBits: Mutator = (r, random) => {
  const side = random() < 0.5 ? "key" : "value";
  const bytes = copy(r[side]);
  if (bytes === null || bytes.length === 0) return r;
  for (let n = 1 + Math.floor(random() * 3); n > 0; n--) bytes[Math.floor(random() * bytes.length)]! ^= 1 << Math.floor(random() * 8);
  return { ...r, [side]: bytes };
};
const trailingBytes: Mutator = (r, random) => {
  const side = random() < 0.5 ? "key" : "value";
  const bytes = r[side] ?? Buffer.alloc(0);
  return { ...r, [side]: Buffer.concat([bytes, randomBytes(1 + Math.floor(random() * 8), random)]) };
};
const nulls: Mutator = (r, random) => (random() < 0.5 ? { ...r, key: null } : { ...r, value: null });
/** Valid layout, offsets (INT64) or a partition (INT32) out of any real range; JSON numbers likewise. */
const outOfRange: Mutator = (r, random) => {
  const value = r.value;
  const key = r.key;
  if (value !== null && value.length >= 16 && value[0] !== 0x7b && value[0] !== 0x5b) {
    const bytes = Buffer.from(value);
    const slots = Math.floor((bytes.length - (bytes.length % 8 === 0 ? 0 : 2)) / 8);
    const at = (bytes.length % 8 === 0 ? 0 : 2) + 8 * Math.floor(random() * Math.max(slots, 1));
    if (at + 8 <= bytes.length) bytes.writeBigInt64BE(pick(int64s, random), at);
    if (key !== null && key.length >= 4 && random() < 0.3) {
      const k = Buffer.from(key);
      k.writeInt32BE(pick([-1, -(2 ** 31), 2 ** 31 - 1], random), k.length - 4);
      return { key: k, value: bytes };
    }
    return { ...r, value: bytes };
  }
  const text = (value ?? key ?? Buffer.alloc(0)).toString("utf8");
  const replaced = text.replace(/-?\d+/g, () => pick(jsonNumbers, random));
  return value !== null ? { ...r, value: Buffer.from(replaced) } : { ...r, key: Buffer.from(replaced) };
};
/** JSON that parses but has the wrong shapes (arrays for objects, numbers for strings…). */
const wrongTypes: Mutator = (r, random) => {
  const side = random() < 0.5 ? "key" : "value";
  const text = (r[side] ?? Buffer.alloc(0)).toString("utf8");
  const replaced = text.replace(/"[^"]*"(?=\s*[,}\]])/g, () => pick(['{"a":1}', "[1,2]", "null", "true", "123", '""', '"\\u0000"'], random));
  return { ...r, [side]: Buffer.from(replaced) };
};

const mutators: readonly Mutator[] = [truncate, wrongVersion, hugeLength, randomRecord, flipBits, trailingBytes, nulls, outOfRange, wrongTypes];

/** Mutated records per batch: about what one tail fetch returns. */
const batchSize = 500;

/**
 * Feeds `count` records (about 1 in 8 an unmutated seed, the rest mutated once or twice) through
 * every decoder, round robin, `batchSize` at a time, as the collector does: decodeAll, then
 * countMalformed with the batch's offsets.
 */
export function runRecordFuzz(count: number, seed: number): FuzzReport {
  const random = createRandom(seed);
  const report: FuzzReport = { records: 0, crashes: 0, crashSamples: [], decoded: 0, malformed: 0, foreign: 0, unaccounted: 0, misread: 0, countedByCollector: {}, byTopic: {} };
  const collector = { state: { malformed: report.countedByCollector } };
  const offsets = new Map<string, bigint>();
  for (let done = 0; done < count; ) {
    const target = targets[Math.floor(done / batchSize) % targets.length]!;
    const size = Math.min(batchSize, count - done);
    const batch = Array.from({ length: size }, () => mutate(pick(target.seeds, random), random));
    const first = offsets.get(target.topic) ?? 0n;
    offsets.set(target.topic, first + BigInt(size));
    fuzzBatch(target, batch, first, report, collector);
    done += size;
  }
  return report;
}

function mutate(seed: RawRecord, random: () => number): RawRecord {
  if (random() < 0.125) return seed;
  let record = pick(mutators, random)(seed, random);
  if (random() < 0.3) record = pick(mutators, random)(record, random);
  return record;
}

function fuzzBatch(target: FuzzTarget, batch: RawRecord[], firstOffset: bigint, report: FuzzReport, collector: { state: { malformed: Record<string, number> } }): void {
  const tally = (report.byTopic[target.topic] ??= { records: 0, decoded: 0, malformed: 0, foreign: 0 });
  report.records += batch.length;
  tally.records += batch.length;
  let result: ReturnType<typeof decodeAll<unknown>>;
  let crashed = 0;
  try {
    result = decodeAll(batch, target.decode);
  } catch {
    // Find the records that crash, one at a time, and count the batch's others as decodeAll would.
    result = { decoded: [], malformed: 0, skipped: 0, lastError: null, malformedAt: [] };
    for (const [i, record] of batch.entries()) {
      try {
        const one = decodeAll([record], target.decode);
        result.decoded.push(...one.decoded);
        result.malformed += one.malformed;
        result.skipped += one.skipped;
        if (one.malformed > 0) result.malformedAt.push(i);
      } catch (error) {
        crashed += 1;
        report.crashes += 1;
        if (report.crashSamples.length < 10) report.crashSamples.push({ topic: target.topic, key: record.key?.toString("hex") ?? null, value: record.value?.toString("hex") ?? null, error: String(error) });
      }
    }
  }
  const records = batch.map((_, i) => ({ offset: firstOffset + BigInt(i) }));
  countMalformed(collector, { cluster: "fuzz", topic: target.topic, partition: 0 }, records, result);
  report.decoded += result.decoded.length;
  report.malformed += result.malformed;
  report.foreign += result.skipped;
  tally.decoded += result.decoded.length;
  tally.malformed += result.malformed;
  tally.foreign += result.skipped;
  report.unaccounted += batch.length - crashed - result.decoded.length - result.malformed - result.skipped;
  verifyDecoded(target, batch, result, report);
}

/** Pairs each decoded value with its record (decodeAll keeps input order) and checks it. */
function verifyDecoded(target: FuzzTarget, batch: RawRecord[], result: { decoded: unknown[]; malformedAt: number[] }, report: FuzzReport): void {
  const bad = new Set(result.malformedAt);
  let next = 0;
  for (const [i, record] of batch.entries()) {
    if (bad.has(i)) continue;
    let decoded: unknown;
    try {
      decoded = target.decode(record.key, record.value);
    } catch {
      continue; // foreign (or a crash, counted above)
    }
    if (target.verify(record, decoded) !== null) report.misread += 1;
    next += 1;
  }
  if (next !== result.decoded.length) report.unaccounted += Math.abs(next - result.decoded.length);
}
