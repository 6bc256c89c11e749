import type { PartitionRowView, RowNote } from "./topic";

/**
 * The topic page's partition rows as columns, for the trip from the server component to the client table: React's
 * payload (inlined in the page's HTML) then names each field once instead of once per row. Rows of 50 partitions
 * were ~22 KiB of the page's 33 KiB payload as objects, ~8 KiB as columns; a topic of 1,000 partitions is 20 times
 * that, while the server renders only the rows in view. Client-safe and pure.
 */
export interface PartitionRowColumns {
  count: number;
  partition: number[];
  sourceLogStart: string[];
  sourceLogEnd: string[];
  mm2Position: string[];
  committedPosition: string[];
  positionSource: string[];
  targetLogEnd: string[];
  lag: string[];
  lagState: PartitionRowView["lagState"][];
  latestSync: string[];
  leader: string[];
  leaderEpoch: string[];
  isr: string[];
  replicas: string[];
  underReplicated: boolean[];
  /** Rare per row: only the rows that have one, by row index. */
  partial: Record<number, string>;
  lagNote: Record<number, RowNote>;
  positionNote: Record<number, RowNote>;
  transactionNote: Record<number, RowNote>;
}

type DenseField = Exclude<keyof PartitionRowColumns, "count" | SparseField>;
type SparseField = "partial" | "lagNote" | "positionNote" | "transactionNote";

const denseFields = [
  "partition", "sourceLogStart", "sourceLogEnd", "mm2Position", "committedPosition", "positionSource", "targetLogEnd",
  "lag", "lagState", "latestSync", "leader", "leaderEpoch", "isr", "replicas", "underReplicated",
] as const satisfies readonly DenseField[];
const sparseFields = ["partial", "lagNote", "positionNote", "transactionNote"] as const satisfies readonly SparseField[];

/** Per rows list (one per topic and cycle, shared by that cycle's requests: topic.ts): its columns. */
const packedOf = new WeakMap<readonly PartitionRowView[], PartitionRowColumns>();

/** Rows → columns (the server side of the trip), once per rows list; shared by the cycle's requests: do not mutate. */
export function packPartitionRows(rows: readonly PartitionRowView[]): PartitionRowColumns {
  let packed = packedOf.get(rows);
  if (!packed) packedOf.set(rows, (packed = buildColumns(rows)));
  return packed;
}

function buildColumns(rows: readonly PartitionRowView[]): PartitionRowColumns {
  const columns = { count: rows.length } as Record<string, unknown>;
  for (const field of denseFields) columns[field] = rows.map((row) => row[field]);
  for (const field of sparseFields) {
    const present: Record<number, unknown> = {};
    rows.forEach((row, index) => {
      if (row[field] !== null) present[index] = row[field];
    });
    columns[field] = present;
  }
  return columns as unknown as PartitionRowColumns;
}

/** Columns → rows (the client side), equal field by field to the rows packed. */
export function unpackPartitionRows(columns: PartitionRowColumns): PartitionRowView[] {
  return Array.from({ length: columns.count }, (_, index) => ({
    partition: columns.partition[index]!,
    sourceLogStart: columns.sourceLogStart[index]!,
    sourceLogEnd: columns.sourceLogEnd[index]!,
    mm2Position: columns.mm2Position[index]!,
    committedPosition: columns.committedPosition[index]!,
    positionSource: columns.positionSource[index]!,
    targetLogEnd: columns.targetLogEnd[index]!,
    lag: columns.lag[index]!,
    lagState: columns.lagState[index]!,
    partial: columns.partial[index] ?? null,
    lagNote: columns.lagNote[index] ?? null,
    positionNote: columns.positionNote[index] ?? null,
    transactionNote: columns.transactionNote[index] ?? null,
    latestSync: columns.latestSync[index]!,
    leader: columns.leader[index]!,
    leaderEpoch: columns.leaderEpoch[index]!,
    isr: columns.isr[index]!,
    replicas: columns.replicas[index]!,
    underReplicated: columns.underReplicated[index]!,
  }));
}
