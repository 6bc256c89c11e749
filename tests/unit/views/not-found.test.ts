import { describe, expect, it } from "vitest";
import type { ReadModel } from "@/lib/pipeline/read-model";
import type { FlowTranslation, GroupTranslation } from "@/lib/translation";
import {
  buildNotFoundIndex,
  describeNumbers,
  explainNotFound,
  notFoundListLimit,
  parseFlowRoutePath,
  readNotFoundIndex,
} from "@/lib/views/not-found";
import { shellTopicPlaceholder } from "@/lib/views/topic-page-data";
import { lookupFlowPartition } from "@/lib/views/partition-lookup";
import { makeFlow, makeFlowPartition, makeSnapshot } from "../detect/fixtures";

/** east->west replicating orders (partitions 0–2 and 5) and payments (0); MM2 checkpoints gapwatch-slow. */
const flow = makeFlow({
  partitions: [
    ...[5, 0, 2, 1].map((partition) => makeFlowPartition({ topic: "orders", partition })),
    makeFlowPartition({ topic: "payments", partition: 0, targetTopic: "east.payments" }),
  ],
});
const snapshot = makeSnapshot({ flows: [flow] });
const translation = { flow: "east->west", groups: [{ group: "gapwatch-slow" } as GroupTranslation], excludedGroups: ["console-consumer-1"] } as FlowTranslation;
const index = buildNotFoundIndex(snapshot, new Map([["east->west", translation]]));
const enc = encodeURIComponent;

describe("buildNotFoundIndex", () => {
  it("lists each flow's topics with their partitions, and its groups", () => {
    expect(index).toEqual({
      flows: [
        {
          id: "east->west",
          topics: [
            { name: "orders", partitions: "0–2, 5" },
            { name: "payments", partitions: "0" },
          ],
          moreTopics: 0,
          groups: ["gapwatch-slow"],
          moreGroups: 0,
          excludedGroups: ["console-consumer-1"],
        },
      ],
    });
  });

  it("caps the topics listed per flow and counts the rest", () => {
    const many = makeFlow({ partitions: Array.from({ length: notFoundListLimit + 3 }, (_, i) => makeFlowPartition({ topic: `t${String(i).padStart(4, "0")}`, partition: 0 })) });
    const capped = buildNotFoundIndex(makeSnapshot({ flows: [many] }), new Map()).flows[0]!;
    expect([capped.topics.length, capped.moreTopics, capped.topics.at(-1)!.name, capped.groups]).toEqual([200, 3, "t0199", []]);
  });
});

describe("readNotFoundIndex", () => {
  const modelOf = (s: typeof snapshot) => ({ snapshot: s, translations: new Map([["east->west", translation]]) }) as unknown as ReadModel;

  it("builds a model's index once: every page under /flows renders the not-found fallback", () => {
    const model = modelOf(snapshot);
    const first = readNotFoundIndex(model);
    expect(first).toEqual(index);
    expect(readNotFoundIndex(model)).toBe(first);
  });

  it("indexes the next cycle's model afresh", () => {
    readNotFoundIndex(modelOf(snapshot));
    const next = makeSnapshot({ cycle: 2, flows: [makeFlow({ partitions: [makeFlowPartition({ topic: "ledger", partition: 3 })] })] });
    expect(readNotFoundIndex(modelOf(next)).flows[0]!.topics).toEqual([{ name: "ledger", partitions: "3" }]);
  });
});

describe("explainNotFound", () => {
  it("explains the topic page's shell (rendered for the placeholder topic) as a listed topic's page", () => {
    expect(explainNotFound(index, { flow: enc("east->west"), topic: shellTopicPlaceholder })).toEqual({ missing: "unknown" });
    expect(explainNotFound(index, { flow: enc("east->west"), topic: "orders" })).toEqual({ missing: "unknown" });
  });

  it("names the outermost segment that names nothing, with what exists there", () => {
    expect(explainNotFound(index, { flow: enc("nowhere->west"), topic: "orders" })).toEqual({ missing: "flow", flow: "nowhere->west", known: ["east->west"] });
    expect(explainNotFound(index, { flow: enc("east->west"), topic: "ledger", partition: "0" })).toEqual({
      missing: "topic",
      flow: "east->west",
      topic: "ledger",
      topics: ["orders", "payments"],
      moreTopics: 0,
    });
    expect(explainNotFound(index, { flow: enc("east->west"), topic: "orders", partition: "3" })).toEqual({
      missing: "partition",
      flow: "east->west",
      topic: "orders",
      partition: "3",
      partitions: "0–2, 5",
    });
    expect(explainNotFound(index, { flow: enc("east->west"), group: "console-consumer-1" })).toEqual({
      missing: "group",
      flow: "east->west",
      group: "console-consumer-1",
      groups: ["gapwatch-slow"],
      moreGroups: 0,
      excluded: true,
    });
  });

  it("says nothing specific when every segment exists (the page itself was not found)", () => {
    expect(explainNotFound(index, { flow: enc("east->west"), group: "gapwatch-slow" })).toEqual({ missing: "unknown" });
    expect(explainNotFound(index, {})).toEqual({ missing: "unknown" });
  });
});

describe("parseFlowRoutePath", () => {
  it("names the route params of every page under /flows/<flow>, segments still encoded", () => {
    expect(parseFlowRoutePath("/flows/nowhere-%3Ewest")).toEqual({ flow: "nowhere-%3Ewest" });
    expect(parseFlowRoutePath("/flows/east-%3Ewest/topics")).toEqual({ flow: "east-%3Ewest" });
    expect(parseFlowRoutePath("/flows/east-%3Ewest/topics/ledger")).toEqual({ flow: "east-%3Ewest", topic: "ledger" });
    expect(parseFlowRoutePath("/flows/east-%3Ewest/topics/orders/99")).toEqual({ flow: "east-%3Ewest", topic: "orders", partition: "99" });
    expect(parseFlowRoutePath("/flows/east-%3Ewest/groups")).toEqual({ flow: "east-%3Ewest" });
    expect(parseFlowRoutePath("/flows/east-%3Ewest/groups/nobody")).toEqual({ flow: "east-%3Ewest", group: "nobody" });
    expect(parseFlowRoutePath("/flows/east-%3Ewest/elsewhere")).toEqual({ flow: "east-%3Ewest" });
    expect(parseFlowRoutePath("/alerts")).toEqual({});
    expect(parseFlowRoutePath("")).toEqual({});
  });

  it("explains a 404 from the path alone as from the browser's params", () => {
    expect(explainNotFound(index, parseFlowRoutePath(`/flows/${enc("east->west")}/topics/orders/3`))).toEqual({
      missing: "partition",
      flow: "east->west",
      topic: "orders",
      partition: "3",
      partitions: "0–2, 5",
    });
    expect(explainNotFound(index, parseFlowRoutePath(`/flows/${enc("east->west")}/topics/orders`))).toEqual({ missing: "unknown" });
  });
});

describe("lookupFlowPartition", () => {
  it("finds a partition by its plain number only", () => {
    const found = lookupFlowPartition(flow, "orders", "5");
    expect(found.found && [found.partition.topic, found.partition.partition]).toEqual(["orders", 5]);
    expect(lookupFlowPartition(flow, "orders", "05").found).toBe(true);
    expect(lookupFlowPartition(flow, "orders", "-1")).toEqual({
      found: false,
      missing: "partition",
      message: 'topic orders of flow east->west has no replicated partition "-1"; it has partitions 0–2, 5',
    });
  });

  it("says which topics the flow replicates when the topic is unknown", () => {
    expect(lookupFlowPartition(flow, "east.orders", "0")).toEqual({
      found: false,
      missing: "topic",
      message: 'flow east->west replicates no topic "east.orders" (use the source topic\'s name); its topics: orders, payments',
    });
  });

  it("describes partition numbers as runs", () => {
    expect([describeNumbers([0, 1, 2, 3]), describeNumbers([0, 2, 3, 4, 9]), describeNumbers([])]).toEqual(["0–3", "0, 2–4, 9", ""]);
  });
});
