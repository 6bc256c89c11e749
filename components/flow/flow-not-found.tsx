import { EmptyState } from "@/components/ui/empty-state";
import { TextLink } from "@/components/ui/text-link";
import { flowPath } from "@/lib/views/flow-page";

/** Unknown flow id: says so and lists the flows that exist. */
export function FlowNotFound({ id, known }: { id: string; known: string[] }) {
  return (
    <EmptyState tone="warn" title={`No MirrorMaker 2 flow "${id}"`} data-testid="flow-not-found">
      <p>Flow ids are &lt;source&gt;-&gt;&lt;target&gt; cluster aliases, as MM2 names them. Pick one of the flows Gapwatch knows:</p>
      {known.length === 0 ? (
        <p>None discovered yet — check that the Connect clusters in the config run MM2 connectors.</p>
      ) : (
        <ul className="list-inside list-disc">
          {known.map((f) => (
            <li key={f}>
              <TextLink href={flowPath(f)} className="font-mono">
                {f}
              </TextLink>
            </li>
          ))}
        </ul>
      )}
    </EmptyState>
  );
}
