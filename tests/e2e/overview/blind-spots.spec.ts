import { expect, test } from "@playwright/test";
import { saveAtDesktopAndPhone } from "../support/screenshots";
import { lockedAlias, lockedTopic, lockedUser } from "../support/locked-cluster";
import { readTopicsOnlyUrl } from "../support/topics-only-app";

/**
 * The second dashboard of the run reads a cluster with Kafka's StandardAuthorizer where its user holds the generated
 * ACLs but DescribeConfigs on topics and on the cluster (tests/e2e/support/locked-cluster.ts): two real blind spots.
 */
test("a cluster that denies reads shows each blind spot on the overview: what is off, for what, and the ACL that fixes it", async ({ browser }) => {
  const context = await browser.newContext({ baseURL: readTopicsOnlyUrl() });
  const page = await context.newPage();
  await page.goto("/");
  const card = page.getByTestId(`cluster-${lockedAlias}`);
  await expect(card.getByTestId("blind-spots")).toBeVisible({ timeout: 60_000 });
  const topics = card.getByTestId(`blind-spot-${lockedAlias}-topic-configs`);
  await expect(topics).toContainText(`${lockedAlias}: off: the exact sync-gap DATA_LOSS signal`);
  await expect(topics).toContainText(`for 1 topic: ${lockedTopic}.`);
  await expect(topics).toContainText("DescribeConfigs denied (TOPIC_AUTHORIZATION_FAILED)");
  await expect(topics).toContainText(`--allow-principal User:${lockedUser.username} --operation DescribeConfigs --topic`);
  const broker = card.getByTestId(`blind-spot-${lockedAlias}-broker-configs`);
  await expect(broker).toContainText("for the cluster's broker configs");
  await expect(broker).toContainText("DescribeConfigs denied (CLUSTER_AUTHORIZATION_FAILED)");
  await expect(broker).toContainText("--operation DescribeConfigs --cluster");
  // The same in /api/health: degraded, each blind spot named.
  const health = (await (await page.request.get("/api/health")).json()) as { status: string; blindSpots: { cluster: string; kind: string }[] };
  expect(health.status).toBe("degraded");
  expect(health.blindSpots.filter((b) => b.cluster === lockedAlias).map((b) => b.kind).sort()).toEqual(["broker-configs", "topic-configs"]);
  await saveAtDesktopAndPhone(page, "overview-blind-spots");
  await context.close();
});
