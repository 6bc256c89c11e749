import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // Native and Kafka client modules stay in node_modules instead of being bundled.
  serverExternalPackages: ["better-sqlite3", "@platformatic/kafka", "kafkajs", "pino"],
  poweredByHeader: false,
};

export default nextConfig;
