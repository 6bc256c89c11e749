import { EmptyState } from "@/components/ui/empty-state";
import { TextLink } from "@/components/ui/text-link";

/** HTTP 404 for any other unknown URL. */
export default function NotFound() {
  return (
    <EmptyState tone="warn" title="Page not found" data-testid="page-not-found">
      <p>
        Gapwatch has no page at this address. Go to <TextLink href="/">the overview</TextLink>.
      </p>
    </EmptyState>
  );
}
