import type { ComponentProps } from "react";
import { cn } from "@/lib/utils";

export function Table({ className, ...props }: ComponentProps<"table">) {
  return (
    <div className="w-full overflow-x-auto">
      <table data-slot="table" className={cn("w-full border-collapse text-sm", className)} {...props} />
    </div>
  );
}

export function Th({ className, ...props }: ComponentProps<"th">) {
  return <th data-slot="th" className={cn("border-b border-zinc-200 px-3 py-2 text-left text-xs font-semibold uppercase tracking-wide text-zinc-600 dark:border-zinc-800 dark:text-zinc-400", className)} {...props} />;
}

export function Td({ className, ...props }: ComponentProps<"td">) {
  return <td data-slot="td" className={cn("border-b border-zinc-100 px-3 py-1.5 dark:border-zinc-800/60", className)} {...props} />;
}

/** A right-aligned numeric cell in a monospace font. */
export function NumTd({ className, ...props }: ComponentProps<"td">) {
  return <Td className={cn("text-right font-mono", className)} {...props} />;
}
