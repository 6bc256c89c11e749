import { TextLink } from "@/components/ui/text-link";
import type { FlowReadiness } from "@/lib/views/readiness";
import { VerdictPill } from "./readiness-pill";

/** The overview's one-line failover verdict of a flow: the pill and the worst reason, linking to the checks. */
export function ReadinessLine({ readiness, href }: { readiness: FlowReadiness; href: string }) {
  const worst = readiness.checks.find((c) => c.status !== "ok");
  return (
    <p className="mb-2 flex flex-wrap items-center gap-2 text-sm" data-testid="flow-readiness" data-verdict={readiness.verdict}>
      <span className="font-semibold">Failover:</span>
      <VerdictPill verdict={readiness.verdict} />
      {worst === undefined ? (
        <span className="text-zinc-700 dark:text-zinc-300">every check passes</span>
      ) : (
        <TextLink href={href}>
          {worst.title}: {worst.message}
        </TextLink>
      )}
    </p>
  );
}
