export { Collector, type CycleListener } from "./collector";
export { formatFlowId } from "./flow-discovery";
export { getRuntime, startRuntime } from "./singleton";
export * from "./types";
