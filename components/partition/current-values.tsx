import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";

/** The partition's latest readings as a definition list (label, value, what it means). */
type Reading = { label: string; value: string; hint?: string };

export function CurrentValues({ values, broker }: { values: Reading[]; broker: Reading[] }) {
  return (
    <Card data-testid="current-values">
      <CardHeader>
        <CardTitle>Current values</CardTitle>
      </CardHeader>
      <CardContent>
        <dl className="grid grid-cols-2 gap-x-4 gap-y-2 text-sm">
          {[...values, ...broker].map((v: Reading) => (
            <div key={v.label}>
              <dt className="text-xs text-zinc-600 dark:text-zinc-400">{v.label}</dt>
              <dd className="font-mono font-semibold">
                {v.value}
                {v.hint ? <span className="block text-xs font-normal text-zinc-500 dark:text-zinc-400">{v.hint}</span> : null}
              </dd>
            </div>
          ))}
        </dl>
      </CardContent>
    </Card>
  );
}
