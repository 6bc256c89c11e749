/**
 * Next.js calls register() once when the server starts (never during `next build`): the
 * collector starts with the server. Node runtime only; GAPWATCH_DISABLE_COLLECTOR=1 turns it off.
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs" || process.env.GAPWATCH_DISABLE_COLLECTOR === "1") return;
  const { startRuntime } = await import("@/lib/pipeline/runtime");
  startRuntime();
}
