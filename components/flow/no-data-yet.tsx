import { EmptyState } from "@/components/ui/empty-state";

/** Before the collector's first cycle finished: nothing is wrong, the page fills in by itself. */
export function NoDataYet() {
  return (
    <EmptyState title="No data yet: the first poll cycle is still running" data-testid="no-data-yet">
      <p>Gapwatch is reading the clusters and Kafka Connect for the first time. This page refreshes itself and fills in within one poll interval.</p>
      <p>If it stays empty, check the server log for unreachable clusters.</p>
    </EmptyState>
  );
}
