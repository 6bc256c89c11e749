import type { SandboxState } from "../state";
import { runFailTask, runRecover, runResetNone } from "./fail-task";
import { runLag, runResume } from "./lag";
import { runPurge } from "./purge";
import { runTopicReset } from "./topic-reset";

export { runFailTask, runLag, runPurge, runRecover, runResetNone, runResume, runTopicReset };

type ScenarioArgs = Record<string, string | undefined>;
const num = (v: string | undefined) => (v === undefined ? undefined : Number(v));

/** Scenarios by the name `npm run sandbox -- <name> [--key value]` uses. */
export const scenarios: Record<string, { describe: string; run: (state: SandboxState, args: ScenarioArgs) => Promise<object> }> = {
  purge: {
    describe: "pause MM2, produce --records (500) to --topic (orders) --partition (2), delete them at the source, resume",
    run: (s, a) => runPurge(s, { topic: a.topic, partition: num(a.partition), records: num(a.records), resume: a.resume !== "false" }),
  },
  "topic-reset": {
    describe: "delete and recreate --topic (payments) on the source while MM2 runs",
    run: (s, a) => runTopicReset(s, { topic: a.topic, records: num(a.records) }),
  },
  "fail-task": { describe: "drive MM2's source task into FAILED (a Cast transform that throws)", run: (s) => runFailTask(s) },
  "reset-none": { describe: "set MM2's consumer auto.offset.reset=none: a later purge stalls the task instead of skipping", run: (s) => runResetNone(s) },
  recover: { describe: "undo fail-task and reset-none: restore the source connector's config", run: (s) => runRecover(s) },
  lag: { describe: "pause MM2's source connector for --seconds (30; 0 leaves it paused)", run: (s, a) => runLag(s, { seconds: num(a.seconds) }) },
  resume: { describe: "resume MM2's source connector", run: (s) => runResume(s) },
};
