/**
 * Failover plans: per group, the target offsets to commit before consumers start on the target,
 * as the CSV `kafka-consumer-groups.sh --reset-offsets --from-file <csv> --group <g> --execute`
 * reads on the TARGET cluster.
 *
 * MODES
 * - `mm2`: what MM2's checkpoints give — the latest real checkpoint's downstream offset; where MM2
 *   has not checkpointed the partition yet, the model's translation (what it will checkpoint).
 * - `precise`: the exact target position where the full sync history proves it; where only a
 *   bracket is known, its LOW bound (never past the first record the group had not consumed, so
 *   nothing is skipped); MM2's value (as in `mm2`) where nothing is provable.
 * Partitions with no offset in a mode are left out of the CSV (listed in `omitted`).
 *
 * CSV FORMAT (Kafka tools GroupOffsetsResetter.parseResetPlan + CsvUtils, 3.7–4.x): the file is
 * split on "\n"; every line is read by Jackson's CsvMapper with the schema topic,partition,offset
 * (single --group) — no header, no comments, no blank lines, no "\r" (it would end up in the long
 * field). A trailing newline is fine (String.split drops trailing empty strings). Kafka topic
 * names are [a-zA-Z0-9._-], so no quoting is ever needed. An empty file cannot be parsed (the
 * first line "" is not a record), so callers must not offer an empty plan as a file.
 */
import { selectMirrorMakerOffset } from "./reread";
import type { GroupTranslation, PartitionTranslation } from "./types";

/** The two plan modes. */
export const FailoverMode = {
  /** MM2's own checkpoints (what sync.group.offsets or RemoteClusterUtils would apply). */
  MM2: "mm2",
  /** Exact positions from the full sync history; bracket low bounds; MM2's value otherwise. */
  PRECISE: "precise",
} as const;
export type FailoverModeName = (typeof FailoverMode)[keyof typeof FailoverMode];

/** Allowed `mode` values, in the order error messages list them. */
export const failoverModes: readonly FailoverModeName[] = [FailoverMode.MM2, FailoverMode.PRECISE];

/** Where a plan row's offset comes from. */
export type PlanOffsetSource = "checkpoint" | "model" | "exact" | "bracket-low";

/** One CSV line: a TARGET topic-partition and the offset to commit. */
export interface FailoverPlanRow {
  topic: string;
  partition: number;
  offset: bigint;
  source: PlanOffsetSource;
  /** Records the group would re-read from this offset (ideal − offset, conservative), when known. */
  rereadRecords: bigint | null;
}

/** A group's plan in one mode. */
export interface FailoverPlan {
  flow: string;
  group: string;
  mode: FailoverModeName;
  rows: FailoverPlanRow[];
  omitted: { topic: string; partition: number; reason: string }[];
  /** Σ positive rereadRecords. */
  rereadRecords: bigint;
}

/** Builds a group's failover plan (see MODES above). */
export function buildFailoverPlan(flow: string, group: GroupTranslation, mode: FailoverModeName): FailoverPlan {
  const rows: FailoverPlanRow[] = [];
  const omitted: FailoverPlan["omitted"] = [];
  for (const p of group.partitions) {
    const choice = mode === FailoverMode.PRECISE ? choosePrecise(p) : chooseMirrorMaker(p);
    if (p.targetTopic === null || choice === null) {
      omitted.push({ topic: p.topic, partition: p.partition, reason: p.translation.kind === "untranslatable" ? p.translation.detail : "no offset available" });
      continue;
    }
    rows.push({ topic: p.targetTopic, partition: p.partition, offset: choice.offset, source: choice.source, rereadRecords: rereadFrom(p, choice.offset) });
  }
  const rereadRecords = rows.reduce((sum, r) => sum + (r.rereadRecords !== null && r.rereadRecords > 0n ? r.rereadRecords : 0n), 0n);
  return { flow, group: group.group, mode, rows, omitted, rereadRecords };
}

/** The CSV body kafka-consumer-groups accepts: `topic,partition,offset` lines, LF-terminated. */
export function formatResetCsv(rows: readonly Pick<FailoverPlanRow, "topic" | "partition" | "offset">[]): string {
  return rows
    .map((r) => {
      if (!/^[a-zA-Z0-9._-]+$/.test(r.topic)) throw new RangeError(`"${r.topic}" is not a legal Kafka topic name`);
      if (!Number.isInteger(r.partition) || r.partition < 0) throw new RangeError(`partition ${r.partition} of ${r.topic} is not a partition number`);
      if (r.offset < 0n) throw new RangeError(`offset ${r.offset} of ${r.topic}/${r.partition} is negative`);
      return `${r.topic},${r.partition},${r.offset}\n`;
    })
    .join("");
}

/** Parses the CSV back (tests, and a cross-check before offering a file). */
export function parseResetCsv(csv: string): { topic: string; partition: number; offset: bigint }[] {
  return csv
    .split("\n")
    .filter((line, i, all) => !(line === "" && i === all.length - 1))
    .map((line, i) => {
      const match = /^([a-zA-Z0-9._-]+),(\d+),(\d+)$/.exec(line);
      if (!match) throw new SyntaxError(`line ${i + 1} is not topic,partition,offset: "${line}"`);
      return { topic: match[1]!, partition: Number(match[2]), offset: BigInt(match[3]!) };
    });
}

function chooseMirrorMaker(p: PartitionTranslation): { offset: bigint; source: PlanOffsetSource } | null {
  return selectMirrorMakerOffset(p);
}

function choosePrecise(p: PartitionTranslation): { offset: bigint; source: PlanOffsetSource } | null {
  if (p.ideal.kind === "exact") return { offset: p.ideal.downstream, source: "exact" };
  if (p.ideal.kind === "bracket") return { offset: p.ideal.low, source: "bracket-low" };
  return selectMirrorMakerOffset(p);
}

function rereadFrom(p: PartitionTranslation, offset: bigint): bigint | null {
  if (p.ideal.kind === "exact") return p.ideal.downstream - offset;
  if (p.ideal.kind === "bracket") return p.ideal.high - offset;
  return null;
}
