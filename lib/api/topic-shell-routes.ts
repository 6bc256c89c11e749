import zlib from "node:zlib";
import type { Flow, Snapshot } from "@/lib/collector/types";
import type { ReadModel } from "@/lib/pipeline/read-model";
import { lookupFlow } from "@/lib/views/flow-page";
import { listFlowTopicPartitions } from "@/lib/views/topic";
import { shapeTopicPageData } from "@/lib/views/topic-page-data";
import { toJson } from "./json";
import type { CapturedAnswer, ShellRoutes } from "./response-cache";
import { fillTopicShell, formatShellUrl, matchPageDataUrl, matchTopicPageUrl } from "./topic-shell";

/**
 * The topic page as a shell route of the response cache: every topic of a flow is answered from one render of the
 * flow's shell (the page rendered for the placeholder topic), and its page data (`/api/flows/{flow}/topics/{topic}/
 * page-data`) are made here from the read model, as the route's handler makes them, once per topic and model. A
 * topic the flow does not list, and any URL a shell cannot serve, go to Next.js (its 404, or its own render).
 */
export function createTopicShellRoutes(): ShellRoutes<ReadModel> {
  return {
    matchShell(url, model) {
      const page = matchTopicPageUrl(url);
      const flow = page === null ? null : findFlow(model.snapshot, page.flowSegment);
      if (page === null || flow === null || listFlowTopicPartitions(flow, page.topic).length === 0) return null;
      return { shellUrl: formatShellUrl(page), value: page.topic, permit: permitOf(flow) };
    },
    fillShell: fillTopicShell,
    matchData(url, model, gzip) {
      const ask = matchPageDataUrl(url);
      const flow = ask === null ? null : findFlow(model.snapshot, ask.flowSegment);
      if (ask === null || flow === null) return null;
      return { permit: permitOf(flow), answer: () => answerPageData(model.snapshot, flow, ask.topic, gzip) };
    },
  };
}

/** One permit per flow: its shell's anonymous render lets the cache answer that flow's page data. */
function permitOf(flow: Flow): string {
  return `topic-page\u0000${flow.id}`;
}

function findFlow(snapshot: Snapshot, flowSegment: string): Flow | null {
  const lookup = lookupFlow(snapshot, flowSegment);
  return lookup.found ? lookup.flow : null;
}

/** The page-data answer the route gives (same JSON text), compressed once when asked; null for its 404. */
function answerPageData(snapshot: Snapshot, flow: Flow, topic: string, gzip: boolean): CapturedAnswer | null {
  const data = shapeTopicPageData(snapshot, flow, topic);
  if (data === null) return null;
  const text = Buffer.from(toJson(data));
  const headers = {
    "content-type": "application/json; charset=utf-8",
    "cache-control": "no-store",
    vary: "Accept-Encoding",
  };
  if (!gzip) return { status: 200, headers, body: text };
  return { status: 200, headers: { ...headers, "content-encoding": "gzip" }, body: zlib.gzipSync(text) };
}
