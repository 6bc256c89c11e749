import { describe, expect, it } from "vitest";
import { extractRootCause } from "@/lib/connect/trace";

/** A MirrorSourceTask failure as Connect's status endpoint returns it (tabs and all). */
const toleranceTrace = [
  "org.apache.kafka.connect.errors.ConnectException: Tolerance exceeded in error handler",
  "\tat org.apache.kafka.connect.runtime.errors.RetryWithToleranceOperator.execAndHandleError(RetryWithToleranceOperator.java:230)",
  "\tat org.apache.kafka.connect.runtime.errors.RetryWithToleranceOperator.execute(RetryWithToleranceOperator.java:156)",
  "\tat org.apache.kafka.connect.runtime.AbstractWorkerSourceTask.sendRecords(AbstractWorkerSourceTask.java:396)",
  "\tat org.apache.kafka.connect.runtime.WorkerTask.run(WorkerTask.java:259)",
  "\tat java.base/java.lang.Thread.run(Thread.java:840)",
  "Caused by: org.apache.kafka.connect.errors.DataException: Unexpected type in Cast transformation: class [B",
  "\tat org.apache.kafka.connect.transforms.Cast.castValueToType(Cast.java:271)",
  "\tat org.apache.kafka.connect.transforms.Cast.applySchemaless(Cast.java:180)",
  "\t... 12 more",
  "",
].join("\n");

describe("extractRootCause", () => {
  it("returns the Caused by line of a MirrorMaker task trace without its prefix", () => {
    expect(extractRootCause(toleranceTrace)).toBe("org.apache.kafka.connect.errors.DataException: Unexpected type in Cast transformation: class [B");
  });

  it("returns the last Caused by line when causes are nested", () => {
    const trace = [
      "org.apache.kafka.connect.errors.ConnectException: Failed to fetch offsets.",
      "\tat org.apache.kafka.connect.mirror.MirrorSourceTask.poll(MirrorSourceTask.java:160)",
      "Caused by: org.apache.kafka.common.KafkaException: Failed to construct kafka consumer",
      "\tat org.apache.kafka.clients.consumer.KafkaConsumer.<init>(KafkaConsumer.java:830)",
      "Caused by: org.apache.kafka.common.errors.SaslAuthenticationException: Authentication failed: Invalid username or password",
      "\t... 9 more",
    ].join("\n");
    expect(extractRootCause(trace)).toBe("org.apache.kafka.common.errors.SaslAuthenticationException: Authentication failed: Invalid username or password");
  });

  it("returns the first line when there is no Caused by", () => {
    const trace = "org.apache.kafka.common.errors.TimeoutException: Timeout expired while fetching topic metadata\n\tat org.apache.kafka.connect.mirror.MirrorSourceConnector.start(MirrorSourceConnector.java:120)\n";
    expect(extractRootCause(trace)).toBe("org.apache.kafka.common.errors.TimeoutException: Timeout expired while fetching topic metadata");
  });

  it("handles Windows line endings and leading blank lines", () => {
    expect(extractRootCause("\r\n  java.lang.IllegalStateException: boom\r\n\tat X.y(X.java:1)\r\nCaused by: java.io.IOException: disk full\r\n")).toBe(
      "java.io.IOException: disk full",
    );
  });

  it.each([[null], [undefined], [""]])("returns null for %s", (trace) => {
    expect(extractRootCause(trace)).toBeNull();
  });

  it("returns null for a trace of only whitespace", () => {
    expect(extractRootCause(" \n\t\n")).toBeNull();
  });
});
