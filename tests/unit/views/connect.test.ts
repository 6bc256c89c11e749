import { describe, expect, it } from "vitest";
import { describeRestartUnavailable, listConnectClusterViews } from "@/lib/views/connect";
import { makeConnect, makeConnector, makeSnapshot, makeTask } from "../detect/fixtures";

const internalTopics = { cluster: "west", configs: "mirrormaker2-cluster-configs", offsets: "mirrormaker2-cluster-offsets", status: "mirrormaker2-cluster-status" };
const failed = makeConnector({ tasks: [makeTask(0, { state: "FAILED", trace: "boom", rootCause: "boom" })] });

describe("listConnectClusterViews", () => {
  it("marks a Connect cluster read from its internal topics, names them and says why a restart is unavailable", () => {
    const connect = makeConnect([failed], { url: null, source: "internal-topics", internalTopics, restError: "no url configured" });
    const [view] = listConnectClusterViews(makeSnapshot({ connect: [connect] }), connect.dataAt! + 1000);
    expect(view).toMatchObject({
      url: null,
      source: "internal-topics",
      internalTopics: "west: mirrormaker2-cluster-configs, mirrormaker2-cluster-status, mirrormaker2-cluster-offsets",
      restError: "no url configured",
      restartUnavailable: describeRestartUnavailable("connect-1"),
      failedTasks: 1,
    });
    expect(view!.restartUnavailable).toContain('"strimzi.io/restart-connector-task=<connector>:<task id>"');
  });

  it("keeps REST mode (also for read models published before the source field) with the restart available", () => {
    const [view] = listConnectClusterViews(makeSnapshot({ connect: [makeConnect([failed])] }), 0);
    expect(view).toMatchObject({ url: "http://connect-1:8083", source: "rest", internalTopics: null, restError: null, restartUnavailable: null });
  });

  it("keeps the restart available when REST is configured but this cycle fell back to the topics", () => {
    const connect = makeConnect([failed], { source: "internal-topics", internalTopics, restError: "ECONNREFUSED" });
    const [view] = listConnectClusterViews(makeSnapshot({ connect: [connect] }), 0);
    expect(view).toMatchObject({ source: "internal-topics", restError: "ECONNREFUSED", restartUnavailable: null });
  });
});

describe("describeRestartUnavailable", () => {
  it("names the task in the Strimzi annotation when it is known", () => {
    expect(describeRestartUnavailable("mm2", { connector: "east->west.MirrorSourceConnector", taskId: 2 })).toBe(
      'Connect cluster "mm2" is read from its internal topics (no url in its config): restarting a task needs ' +
        "Connect's REST API, which Gapwatch cannot reach. Restart it where MM2 runs — on Strimzi: kubectl annotate " +
        'KafkaMirrorMaker2 <name> "strimzi.io/restart-connector-task=east->west.MirrorSourceConnector:2" — or give this ' +
        "Connect cluster a url Gapwatch may reach (docs/connect-without-rest.md).",
    );
  });
});
