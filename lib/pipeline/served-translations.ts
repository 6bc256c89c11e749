/**
 * A model's translations as the encoder takes them: each group whose rows translate-flow.ts holds as columns hands
 * them over as ColumnarRows (columnar-source.ts), written from the columns a column at a time (numeric-row-columns.ts)
 * byte for byte as the group's `partitions` would be, without a PartitionTranslation being made (190,000 rows of 8
 * objects and their bigints at 100,000 partitions, kept with the model until the next cycle once made). Only the
 * encoder reads these.
 */
import { ColumnGroupRows, findColumnGroupRows, type FlowTranslation, type GroupTranslation } from "@/lib/translation";
import { type ColumnarRows, type ColumnBlockSink, columnarRows } from "./columnar-source";

/** `translations` with every group held as columns copied, its `partitions` the columns (for encodeColumnar only). */
export function serveTranslationRows(translations: ReadonlyMap<string, FlowTranslation>): ReadonlyMap<string, unknown> {
  const served = new Map<string, unknown>();
  for (const [flow, translation] of translations) {
    served.set(flow, { ...translation, groups: translation.groups.map(serveGroup) });
  }
  return served;
}

/** The group, or a copy whose `partitions` (in its place among the keys) is its columns. */
function serveGroup(group: GroupTranslation): unknown {
  const rows = findColumnGroupRows(group);
  if (rows === undefined) return group;
  const served: Record<string, unknown> = {};
  // Reading `partitions` would make the rows: every other property is copied.
  for (const key of Object.keys(group)) {
    served[key] = key === "partitions" ? new GroupRows(rows) : group[key as keyof GroupTranslation];
  }
  return served;
}

/** A group's rows held as columns, as the encoder takes them. */
class GroupRows implements ColumnarRows {
  readonly [columnarRows] = true as const;

  constructor(private readonly rows: ColumnGroupRows) {}

  get length(): number {
    return this.rows.length;
  }

  writeRows(sink: ColumnBlockSink): void {
    this.rows.writeRows(sink);
  }

  writeRowsOf(all: readonly ColumnarRows[], sink: ColumnBlockSink): void {
    ColumnGroupRows.writeRowsOf(all.map((rows) => (rows as GroupRows).rows), sink);
  }

  listRows(): readonly unknown[] {
    return this.rows.listRows();
  }
}
