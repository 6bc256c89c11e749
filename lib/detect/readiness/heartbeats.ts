import { formatAge } from "@/lib/format";
import type { ReadinessRule } from "../readiness-rule";
import { makeOutcome } from "./outcome";

/** MM2's heartbeats arrive on the target within the RPO: the flow is alive end to end. */
export const heartbeatsCheck: ReadinessRule = {
  id: "heartbeats",
  title: "Heartbeats",
  check: ({ flow, rpoSeconds }) => {
    const latency = flow.heartbeat.latencyMs;
    if (latency === null) {
      if (flow.connectors.heartbeat === null && flow.discoveredFrom === "connect") {
        return makeOutcome("degraded", "no heartbeat connector: nothing proves the flow alive end to end");
      }
      return makeOutcome("degraded", `no heartbeat from ${flow.source} seen on ${flow.target} yet`);
    }
    if (latency > rpoSeconds * 1000) {
      return makeOutcome("degraded", `the newest heartbeat is ${formatAge(latency)} old: beyond the RPO`);
    }
    return makeOutcome("ok", `the newest heartbeat is ${formatAge(latency)} old`);
  },
};
