import { formatAge, formatCount } from "@/lib/format";
import type { ReadinessRule } from "../readiness-rule";
import { makeOutcome } from "./outcome";

/**
 * What the target lacks now is within the flow's RPO: the oldest record not yet copied is younger
 * than rpoSeconds. Partitions whose data is unknown this cycle make the check unknown.
 */
export const lagCheck: ReadinessRule = {
  id: "lag",
  title: ({ rpoSeconds }) => `Lag within the RPO (${formatAge(rpoSeconds * 1000)})`,
  check: ({ snapshot, flow, rpoSeconds }) => {
    const unknown = flow.partitions.filter((p) => p.unknown !== null || p.lag === null);
    const known = flow.partitions.filter((p) => p.unknown === null && p.lag !== null);
    const lag = known.reduce((sum, p) => sum + (p.lag ?? 0n), 0n);
    const stamps = known.filter((p) => (p.lag ?? 0n) > 0n).map((p) => p.oldestUnreplicatedTimestamp);
    const oldest = stamps.filter((t): t is number => t !== null);
    const ageMs = oldest.length === 0 ? 0 : Math.max(0, snapshot.takenAt - Math.min(...oldest));
    const lagText = `${formatCount(lag)} record${lag === 1n ? "" : "s"} not yet copied`;
    if (ageMs > rpoSeconds * 1000) {
      const message = `${lagText}, the oldest ${formatAge(ageMs)} old: beyond the RPO`;
      return makeOutcome("degraded", message, [{ text: lagText, ref: { kind: "flow" } }]);
    }
    if (unknown.length > 0) {
      const partitions = `${unknown.length} partition${unknown.length === 1 ? "" : "s"}`;
      return makeOutcome("unknown", `${partitions} could not be read this cycle; ${lagText} elsewhere`);
    }
    if (stamps.some((t) => t === null)) return makeOutcome("unknown", `${lagText}; the age of some is unknown`);
    return makeOutcome("ok", lag === 0n ? "every record copied" : `${lagText}, the oldest ${formatAge(ageMs)} old`);
  },
};
