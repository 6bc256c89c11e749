import { writeFileSync } from "node:fs";
import path from "node:path";
import { usesLog4j2 } from "./kafka-version";

/**
 * Writes a logging config for the sandbox JVMs (INFO to stdout, which goes to the process's log
 * file; chatty loggers at WARN) and returns the JVM option that points at it.
 */
export function writeLogConfig(dir: string, version: string): string {
  if (usesLog4j2(version)) {
    const file = path.join(dir, "log4j2.properties");
    writeFileSync(
      file,
      [
        "status = warn",
        "appender.out.type = Console",
        "appender.out.name = out",
        "appender.out.layout.type = PatternLayout",
        "appender.out.layout.pattern = [%d] %p %m (%c)%n",
        "rootLogger.level = info",
        "rootLogger.appenderRef.out.ref = out",
        ...quietLoggers().flatMap((name, i) => [`logger.q${i}.name = ${name}`, `logger.q${i}.level = warn`]),
        "",
      ].join("\n"),
    );
    return `-Dlog4j2.configurationFile=file:${file}`;
  }
  const file = path.join(dir, "log4j.properties");
  writeFileSync(
    file,
    [
      "log4j.rootLogger=INFO, out",
      "log4j.appender.out=org.apache.log4j.ConsoleAppender",
      "log4j.appender.out.layout=org.apache.log4j.PatternLayout",
      "log4j.appender.out.layout.ConversionPattern=[%d] %p %m (%c)%n",
      ...quietLoggers().map((name) => `log4j.logger.${name}=WARN`),
      "",
    ].join("\n"),
  );
  return `-Dlog4j.configuration=file:${file}`;
}

function quietLoggers(): string[] {
  return [
    "kafka.log",
    "kafka.server.KafkaConfig",
    "state.change.logger",
    "org.apache.kafka.clients.consumer.ConsumerConfig",
    "org.apache.kafka.clients.producer.ProducerConfig",
    "org.apache.kafka.clients.admin.AdminClientConfig",
    "org.apache.kafka.common.config.AbstractConfig",
    "org.apache.kafka.storage",
    "org.apache.kafka.metadata",
    "org.apache.kafka.raft",
    "org.apache.kafka.image",
    "org.apache.kafka.controller",
    "org.apache.kafka.coordinator",
    "org.apache.kafka.connect.runtime.WorkerConfig",
    "org.reflections",
  ];
}

/**
 * Logging for Kafka's command-line tools run by tests and scenarios: WARN and above, on stderr,
 * so their stdout holds only what the tool prints.
 */
export function writeToolLogConfig(dir: string, version: string): string {
  if (usesLog4j2(version)) {
    const file = path.join(dir, "log4j2-tools.properties");
    writeFileSync(
      file,
      ["status = warn", "appender.err.type = Console", "appender.err.name = err", "appender.err.target = SYSTEM_ERR",
        "appender.err.layout.type = PatternLayout", "appender.err.layout.pattern = %p %m (%c)%n",
        "rootLogger.level = warn", "rootLogger.appenderRef.err.ref = err", ""].join("\n"),
    );
    return `-Dlog4j2.configurationFile=file:${file}`;
  }
  const file = path.join(dir, "log4j-tools.properties");
  writeFileSync(
    file,
    ["log4j.rootLogger=WARN, err", "log4j.appender.err=org.apache.log4j.ConsoleAppender", "log4j.appender.err.Target=System.err",
      "log4j.appender.err.layout=org.apache.log4j.PatternLayout", "log4j.appender.err.layout.ConversionPattern=%p %m (%c)%n", ""].join("\n"),
  );
  return `-Dlog4j.configuration=file:${file}`;
}

/** JVM options shared by all sandbox JVMs: small heaps and fast start-up on a 2-core machine. */
export function baseJvmOptions(heapMb: number): string[] {
  return [
    `-Xms${Math.min(128, heapMb)}m`,
    `-Xmx${heapMb}m`,
    "-XX:+UseSerialGC",
    "-XX:TieredStopAtLevel=1",
    "-Djava.awt.headless=true",
    "-Djava.net.preferIPv4Stack=true",
  ];
}
