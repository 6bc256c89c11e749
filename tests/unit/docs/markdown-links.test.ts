import { describe, expect, it } from "vitest";
import { listHeadingAnchors, listRelativeLinks } from "./markdown-links";

describe("listRelativeLinks", () => {
  it("lists relative links and images, not URLs, code or fenced blocks", () => {
    const text = [
      "See [config](docs/configuration.md#store) and ![overview](docs/images/overview.png \"The overview\").",
      "An [absolute](https://kafka.apache.org/) one, `[in code](nope.md)`, a [local anchor](#the-two-commands).",
      "```",
      "[fenced](nope.md)",
      "```",
      "[ref]: ../outside.md",
    ].join("\n");
    expect(listRelativeLinks(text)).toEqual([
      { target: "docs/configuration.md#store", line: 1 },
      { target: "docs/images/overview.png", line: 1 },
      { target: "#the-two-commands", line: 2 },
      { target: "../outside.md", line: 6 },
    ]);
  });
});

describe("listHeadingAnchors", () => {
  it("slugs headings as GitHub does, numbering repeats", () => {
    const text = "# Gapwatch\n## The two commands\n### `npm run demo`\n## Alerts: DATA_LOSS (critical)\n## Alerts: DATA_LOSS (critical)";
    expect([...listHeadingAnchors(text)]).toEqual([
      "gapwatch", "the-two-commands", "npm-run-demo", "alerts-data_loss-critical", "alerts-data_loss-critical-1",
    ]);
  });
});
