import { Pill, type PillTone } from "@/components/ui/pill";
import { formatAge, formatCount } from "@/lib/format";
import type { CatchUpState } from "@/lib/views/catch-up";

const tones: Record<CatchUpState, PillTone> = { "caught-up": "ok", "catching-up": "info", "not-catching-up": "warn", unknown: "unknown" };
const labels: Record<CatchUpState, string> = { "caught-up": "caught up", "catching-up": "catching up", "not-catching-up": "not catching up", unknown: "unknown" };

/** The part of a catch-up estimate one line shows (a flow's or a partition's). */
export interface CatchUpFigures {
  state: CatchUpState;
  lag: bigint | null;
  replicationRate: number | null;
  produceRate: number | null;
  etaSeconds: number | null;
}

/** Time to catch up in one line: the state, the ETA, and the two rates it comes from. */
export function CatchUpLine({ estimate, windowSeconds }: { estimate: CatchUpFigures; windowSeconds: number | null }) {
  const rates =
    estimate.replicationRate === null || estimate.produceRate === null
      ? "rates not measured yet (one more cycle)"
      : `MM2 copies ${formatRate(estimate.replicationRate)}/s, the source grows ${formatRate(estimate.produceRate)}/s` +
        (windowSeconds === null ? "" : ` (over the last ${formatAge(windowSeconds * 1000)})`);
  const eta =
    estimate.state === "catching-up" && estimate.etaSeconds !== null
      ? `${formatCount(estimate.lag ?? 0n)} offsets to copy, done in about ${formatAge(estimate.etaSeconds * 1000)}; `
      : estimate.state === "not-catching-up"
        ? `${formatCount(estimate.lag ?? 0n)} offsets to copy and the lag is not shrinking; `
        : "";
  return (
    <p className="flex flex-wrap items-baseline gap-2 text-sm" data-testid="catch-up" data-state={estimate.state}>
      <span className="font-semibold">Time to catch up</span>
      <Pill tone={tones[estimate.state]}>{labels[estimate.state]}</Pill>
      <span className="text-zinc-700 dark:text-zinc-300">
        {eta}
        {rates}
      </span>
    </p>
  );
}

function formatRate(perSecond: number): string {
  return perSecond >= 100 ? formatCount(Math.round(perSecond)) : perSecond.toFixed(1);
}
