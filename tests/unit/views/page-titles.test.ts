import { describe, expect, it } from "vitest";
import { formatFlowName, formatPartitionName, titleOfFlowPage } from "@/lib/views/page-titles";

describe("page titles", () => {
  it("names the flow with an arrow, the most specific thing first", () => {
    expect(formatFlowName("east->west")).toBe("east→west");
    expect(titleOfFlowPage("east->west")).toBe("Flow east→west");
    expect(titleOfFlowPage("east->west", "orders")).toBe("orders · east→west");
    expect(titleOfFlowPage("east->west", formatPartitionName("orders", 3))).toBe("orders[3] · east→west");
    expect(titleOfFlowPage("dc-1->dc-2", "Group gapwatch-slow")).toBe("Group gapwatch-slow · dc-1→dc-2");
  });

  it("replaces only the separator arrow, so topic-like ids keep their dashes", () => {
    expect(formatFlowName("us-east-1->eu-west-1")).toBe("us-east-1→eu-west-1");
    expect(formatPartitionName("a.b-c", "12")).toBe("a.b-c[12]");
  });
});
