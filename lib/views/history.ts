import type { PartitionSample } from "@/lib/store";
import { takePage, type ListSpec, type PageRequest, type SortOrder } from "./pagination";

/**
 * A sample is about 130 bytes of JSON: 1,500 (over 4 hours of raw 10 s samples, or a day of minutes) stay under
 * 256 KB; 20,000 hold the whole 7 days of minutes and the last hour's raw samples of one partition.
 */
export const historyList: ListSpec<"at"> = { list: "partition-history", sorts: ["at"], defaultSort: "at", defaultLimit: 1500, maxLimit: 20_000 };

/** Oldest first; a partition has one sample per time (raw and per-minute rows never overlap). */
const historyOrder: SortOrder<PartitionSample> = { keyOf: (s) => [s.at], directions: ["asc"] };

/** One page of a partition's samples, as the store returns them (oldest first). */
export function pageHistory(samples: readonly PartitionSample[], request: PageRequest<"at">) {
  return takePage(samples.map((row) => ({ row, key: historyOrder.keyOf(row) })), historyOrder, request);
}
