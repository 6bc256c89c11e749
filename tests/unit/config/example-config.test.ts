import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { validateConfigText } from "@/lib/config/load";

const exampleFile = path.join(process.cwd(), "gapwatch.config.example.yaml");

describe("gapwatch.config.example.yaml", () => {
  it("is a valid config once its ${…} variables are set", () => {
    const env = { NODE_ENV: "test", WEST_KAFKA_PASSWORD: "west-password", GAPWATCH_ADMIN_SECRET: "an-admin-secret-of-24-chars" };
    const config = validateConfigText(readFileSync(exampleFile, "utf8"), exampleFile, env);
    expect(config.clusters.map((c) => c.alias)).toEqual(["east", "west"]);
    expect(config.clusters[1]!.sasl).toEqual({ mechanism: "SCRAM-SHA-512", username: "gapwatch", password: "west-password" });
    expect(config.connect.map((c) => c.url)).toEqual(["http://connect:8083"]);
    expect(config.admin.secret).toBe("an-admin-secret-of-24-chars");
  });

  it("README.md's minimal config is a valid config too", () => {
    const readme = readFileSync(path.join(process.cwd(), "README.md"), "utf8");
    const yaml = /```yaml\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(yaml).toBeDefined();
    const env = { NODE_ENV: "test", WEST_KAFKA_PASSWORD: "west-password", GAPWATCH_ADMIN_SECRET: "an-admin-secret-of-24-chars",
      SLACK_WEBHOOK_URL: "https://hooks.slack.example/services/T0/B0/x" };
    const config = validateConfigText(yaml!, "README.md", env);
    expect(config.clusters.map((c) => c.alias)).toEqual(["east", "west"]);
    expect(config.notifications.webhooks).toEqual([{ url: "https://hooks.slack.example/services/T0/B0/x", format: "slack" }]);
  });

  it("refers only to files of this repository that exist", () => {
    const text = readFileSync(exampleFile, "utf8");
    const named = [...text.matchAll(/\b((?:docs|lib|scripts)\/[\w./-]+\.(?:md|ts))\b/g)].map((m) => m[1]!);
    expect(named.length).toBeGreaterThan(0);
    const missing = named.filter((file) => !existsSync(path.join(process.cwd(), file)));
    expect(missing).toEqual([]);
  });
});
