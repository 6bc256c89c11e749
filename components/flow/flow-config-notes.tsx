import type { FlowSummary } from "@/lib/views/flows";

/** Excluded topics listed before "and N more": the section stays short on a flow that dropped many. */
const shownExcluded = 5;

/**
 * What MM2's connector configs say about the flow beyond its numbers: settings Gapwatch cannot
 * evaluate exactly (FLOW_CONFIG_WARNING), and topics that left the flow because MM2's topic filter
 * leaves them out now (Connect may still hold their offsets: not a stall, not a loss of this flow), and MM2
 * settings that change what the figures mean (offset translation off, records skipped on purpose).
 */
export function FlowConfigNotes({ warnings, excludedTopics, settingNotes }: Pick<FlowSummary, "warnings" | "excludedTopics" | "settingNotes">) {
  if (warnings.length === 0 && excludedTopics.length === 0 && settingNotes.length === 0) return null;
  const more = excludedTopics.length - shownExcluded;
  const which = excludedTopics.length === 1 ? "this topic" : `these ${excludedTopics.length} topics`;
  const held = (n: number) => (n > 0 ? `Connect still holds offsets for ${n} ${n === 1 ? "partition" : "partitions"}` : "Connect holds no offsets for it");
  return (
    <div className="mt-3 space-y-2 text-xs" data-testid="flow-config-notes">
      {warnings.map((w) => (
        <p key={`${w.connector ?? ""}|${w.subject}`} className="text-amber-800 dark:text-amber-300" data-testid="flow-config-warning">
          <strong>Config warning:</strong> {w.message}
        </p>
      ))}
      {settingNotes.map((n) => (
        <p key={n.setting} className="text-zinc-700 dark:text-zinc-300" data-testid="flow-setting-note">
          <strong>
            <span className="font-mono">
              {n.setting}={n.value}
            </span>
            :
          </strong>{" "}
          {n.meaning}
        </p>
      ))}
      {excludedTopics.length === 0 ? null : (
        <div data-testid="flow-excluded-topics">
          <p className="text-zinc-700 dark:text-zinc-300">
            <strong>Left the flow</strong> — MM2 no longer copies {which} (not a stall; later deletions at the source are not a loss):
          </p>
          <ul className="list-inside list-disc text-zinc-700 dark:text-zinc-300">
            {excludedTopics.slice(0, shownExcluded).map((e) => (
              <li key={e.topic}>
                <span className="font-mono">{e.topic}</span>: {e.reason} — {held(e.heldPositions)}
              </li>
            ))}
            {more > 0 ? <li>and {more} more</li> : null}
          </ul>
        </div>
      )}
    </div>
  );
}
