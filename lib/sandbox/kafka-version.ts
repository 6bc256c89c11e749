/**
 * Kafka version the sandbox runs. 4.3.1 is the newest 4.x whose connect-mirror and
 * connect-mirror-client jars Maven Central serves here (4.4.0's are missing; checked 2026-11-29);
 * it runs on Java 17. Set GAPWATCH_KAFKA_VERSION=3.9.1, or 3.6.2 (the oldest supported), for a compatibility run:
 * `npm run compat` runs the named subset on each (docs/kafka-versions.md).
 */
export const defaultKafkaVersion = "4.3.1";

export function getKafkaVersion(): string {
  const version = process.env.GAPWATCH_KAFKA_VERSION ?? defaultKafkaVersion;
  if (!/^\d+\.\d+\.\d+$/.test(version)) {
    throw new Error(`GAPWATCH_KAFKA_VERSION must look like 4.3.1, got "${version}"`);
  }
  return version;
}

/** Kafka 4.x logs through Log4j2; 3.x through reload4j (log4j 1 syntax). */
export function usesLog4j2(version: string): boolean {
  return Number(version.split(".")[0]) >= 4;
}
