// GAPWATCH_ROLE=all's collector process: the server (instrumentation.ts → startServerRuntime) starts this file with
// Node and tsx's loader and stops it by PID. It polls, runs the pipeline, publishes each cycle's read model to the
// SQLite file for the server's process, and answers the server's /api/metrics (lib/pipeline/collector-process.ts).
import { runCollectorChild } from "@/lib/pipeline/runtime";
import { renderServedMetrics } from "@/lib/views/served-metrics";

runCollectorChild(renderServedMetrics);
