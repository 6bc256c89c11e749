/**
 * Next.js calls register() once when the server starts (never during `next build`): the peer-address stamp is
 * installed and the collector starts with the server (GAPWATCH_ROLE=web: the reader of the published read models).
 * Node runtime only; GAPWATCH_DISABLE_COLLECTOR=1 turns it off.
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  // Before any request is handled: trusted-proxy checks and sign-in rate limits need the socket's address.
  const { installPeerAddressStamp } = await import("@/lib/auth/client-address");
  installPeerAddressStamp();
  if (process.env.GAPWATCH_DISABLE_COLLECTOR === "1") return;
  const { startRuntime } = await import("@/lib/pipeline/runtime");
  startRuntime();
}
