/**
 * Browser tab titles of the flow pages (the root layout appends " · Gapwatch"): the most specific thing
 * first, then its flow with an arrow, so tabs of several partitions stay apart: "orders[3] · east→west".
 */

/** "east->west" as people read it: "east→west". */
export function formatFlowName(flowId: string): string {
  return flowId.replace("->", "→");
}

/** Title of a flow page, or of one of its pages (`what` first): "Flow east→west", "orders · east→west". */
export function titleOfFlowPage(flowId: string, what?: string): string {
  return what === undefined ? `Flow ${formatFlowName(flowId)}` : `${what} · ${formatFlowName(flowId)}`;
}

/** A partition as Kafka tools print it in brackets: "orders[3]". */
export function formatPartitionName(topic: string, partition: string | number): string {
  return `${topic}[${partition}]`;
}
