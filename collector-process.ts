// GAPWATCH_ROLE=all's collector process: the server (instrumentation.ts → startServerRuntime) starts this file and
// stops it by PID — `next start` the bundle `npm run build` made of it in .next/, `next dev` the source with tsx's
// loader (lib/pipeline/collector-entry.ts). It polls, runs the pipeline, publishes each cycle's read model to the
// SQLite file for the server's process, and answers the server's /api/metrics (lib/pipeline/collector-process.ts).
import { runCollectorChild } from "@/lib/pipeline/runtime";
import { renderServedMetrics } from "@/lib/views/served-metrics";

runCollectorChild(renderServedMetrics);
