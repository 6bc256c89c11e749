import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // Native and Kafka client modules stay in node_modules instead of being bundled.
  serverExternalPackages: ["better-sqlite3", "@platformatic/kafka", "kafkajs", "pino"],
  poweredByHeader: false,
  // `npm run image` (scripts/image.ts) builds with GAPWATCH_STANDALONE=1: .next/standalone then holds server.js and
  // only the node_modules files the server loads. Read by `next build` only: `next start` of that build serves as any.
  ...(process.env.GAPWATCH_STANDALONE === "1" ? { output: "standalone" as const } : {}),
};

export default nextConfig;
