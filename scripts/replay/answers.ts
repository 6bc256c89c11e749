import type { GapwatchConfig } from "@/lib/config";
import type { ReadModel } from "@/lib/pipeline/read-model";
import { pickCatchUpOf, readFlowCatchUp } from "@/lib/views/catch-up";
import { coverageList, pageFlowCoverage } from "@/lib/views/coverage";
import {
  flowPartitionList,
  flowTopicList,
  listCheckpointsOf,
  pageFirstFlowTopics,
  pageFlowPartitions,
  pageFlowTopics,
  readFlowSummary,
} from "@/lib/views/flow-lists";
import { listGroupSummaries, requireTranslation } from "@/lib/views/groups";
import { parsePageRequest } from "@/lib/views/pagination";
import { judgeFlowReadiness } from "@/lib/views/readiness";

/**
 * What the API answers from a cycle's read model, per flow, for each list's default page: the flow page
 * (GET /api/flows/{flow}: summary, partitions, first topics, checkpoints, heartbeat, catch-up), its topics, groups
 * (failover re-reads), readiness and coverage. The pipeline's own outputs (scripts/replay/digest.ts) say what was
 * found; these say what operators are shown of the snapshot beside it, so a change to how a cycle's data is held
 * (issue 32's columns) that changed a page shows here. An answer that is an error (a flow whose translation failed)
 * is its message. Readiness is judged with `config` as the server judges it with its own (readiness-data.ts).
 */
export function selectAnswers(model: ReadModel, config: GapwatchConfig): Record<string, unknown> {
  const snapshot = model.snapshot;
  const none = new URLSearchParams();
  const answers: Record<string, unknown> = {};
  for (const flow of snapshot.flows) {
    const partitions = pageFlowPartitions(snapshot, flow, parsePageRequest(none, flowPartitionList));
    answers[flow.id] = {
      flow: readFlowSummary(snapshot, flow),
      partitions,
      firstTopics: pageFirstFlowTopics(snapshot, flow, parsePageRequest(none, flowPartitionList)),
      checkpoints: listCheckpointsOf(snapshot, flow, partitions.items),
      heartbeat: flow.heartbeat,
      catchUp: pickCatchUpOf(readFlowCatchUp(model.progress, flow), partitions.items),
      topics: pageFlowTopics(snapshot, flow, parsePageRequest(none, flowTopicList)),
      groups: answerOrError(() => listGroupSummaries(requireTranslation(model, flow.id))),
      readiness: judgeFlowReadiness(model, flow, config),
      coverage: pageFlowCoverage(snapshot, flow, parsePageRequest(none, coverageList)),
    };
  }
  return answers;
}

function answerOrError(build: () => unknown): unknown {
  try {
    return build();
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  }
}
