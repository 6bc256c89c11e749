/**
 * Next.js calls register() once when the server starts (never during `next build`): the peer-address stamp is
 * installed and the collector starts with the server — with GAPWATCH_ROLE=all as a child process of its own
 * (collector-process.ts), so page renders never share its event loop; GAPWATCH_ROLE=web: the reader of the published
 * read models — and the store's revoked sessions are read.
 * Node runtime only; GAPWATCH_DISABLE_COLLECTOR=1 turns it off.
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  // Before any request is handled: trusted-proxy checks and sign-in rate limits need the socket's address.
  const { installPeerAddressStamp } = await import("@/lib/auth/client-address");
  installPeerAddressStamp();
  if (process.env.GAPWATCH_DISABLE_COLLECTOR === "1") return;
  const { getServingRuntime, startServerRuntime } = await import("@/lib/pipeline/runtime");
  startServerRuntime();
  // Signed-out sessions are kept in the store: read before requests are served (refused until then).
  const { attachRevocationStore } = await import("@/lib/auth/revocation");
  await attachRevocationStore(getServingRuntime().store);
  // Last, so that it wraps the peer stamp: a cached answer needs no stamp, a miss gets one.
  const { installResponseCache } = await import("@/lib/api/install-response-cache");
  installResponseCache();
}
