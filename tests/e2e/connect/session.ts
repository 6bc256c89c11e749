import { expect, type Page } from "@playwright/test";
import { waitForHydration } from "../flow/wait-hydrated";

/** The admin secret the e2e runner starts the app with. */
export function readAdminSecret(): string {
  const secret = process.env.GAPWATCH_ADMIN_SECRET;
  if (!secret) throw new Error("GAPWATCH_ADMIN_SECRET is not set: run the e2e tests through `npm test` or set it to the app's admin secret");
  return secret;
}

/** Signs in through the /signin page and waits for the header to say so. */
export async function signIn(page: Page, secret = readAdminSecret()): Promise<void> {
  await page.goto("/signin?next=/connect");
  await waitForHydration(page);
  await page.getByLabel("Admin secret").fill(secret);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByTestId("session-status")).toContainText("Signed in as admin", { timeout: 30_000 });
}

/** Signs out with the header's button and waits for "Sign in to act". */
export async function signOut(page: Page): Promise<void> {
  await page.getByTestId("session-status").getByRole("button", { name: "Sign out" }).click();
  await expect(page.getByTestId("session-status")).toContainText("Sign in to act", { timeout: 30_000 });
}
