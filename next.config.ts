import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // Native and Kafka client modules stay in node_modules instead of being bundled.
  serverExternalPackages: ["better-sqlite3", "@platformatic/kafka", "kafkajs", "pino"],
  poweredByHeader: false,
  // `npm run image` (scripts/image.ts) builds with GAPWATCH_STANDALONE=1: .next/standalone then holds server.js and
  // only the node_modules files the server loads. Read by `next build` only: `next start` of that build serves as any.
  ...(process.env.GAPWATCH_STANDALONE === "1" ? { output: "standalone" as const } : {}),
  // `npm test`'s build sets GAPWATCH_TYPES_CHECKED=1: its typecheck stage already ran `tsc --noEmit` over the same
  // sources, and next build's own TypeScript pass took 3.1 min of a loaded CI run. Every other build checks types.
  typescript: { ignoreBuildErrors: process.env.GAPWATCH_TYPES_CHECKED === "1" },
};

export default nextConfig;
