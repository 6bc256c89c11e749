export { Collector, type CycleListener } from "./collector";
export { formatFlowId } from "./flow-discovery";
export * from "./types";
