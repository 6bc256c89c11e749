/**
 * Offsets as float64 numbers for the translation's row arithmetic (190,000 rows a cycle at 100,000 partitions:
 * numbers cost no allocation, where every bigint result is one). A float64 holds every integer below 2^53 exactly, so
 * an offset is checked once where it comes in (toSafeOffset) and the arithmetic on checked values is exact; a result
 * that could leave that range is computed with bigints instead (translate-flow.ts).
 */
import type { TopicPartition } from "@/lib/mm2";

/**
 * `value` as a number, exact: offsets stay below 2^53 (9 × 10^15 records) in any real log, and a value beyond it is
 * an error naming where it came from (`flow`, `tp`) rather than a silently rounded count.
 */
export function toSafeOffset(value: bigint, flow: string, tp: TopicPartition, what: string): number {
  // One conversion, then number comparisons: a value at or beyond 2^53 converts to at least 2^53 (representable).
  const number = Number(value);
  if (number > Number.MAX_SAFE_INTEGER || number < -Number.MAX_SAFE_INTEGER) throwBeyondSafe(value, flow, tp, what);
  return number;
}

/** The error of toSafeOffset, apart so the check itself stays small enough to inline (it runs for every row). */
export function throwBeyondSafe(value: bigint, flow: string, tp: TopicPartition, what: string): never {
  throw new RangeError(
    `${what} ${value} of ${tp.topic}/${tp.partition} (flow ${flow}) is beyond 2^53 − 1, the largest offset ` +
      "Gapwatch's offset translation computes exactly; the flow's translation is not computed while it is",
  );
}
