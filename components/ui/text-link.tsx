import Link from "next/link";
import type { ComponentProps } from "react";
import { cn } from "@/lib/utils";

/** An in-app link styled as a link, with a visible keyboard focus ring. */
export function TextLink({ className, ...props }: ComponentProps<typeof Link>) {
  return <Link className={cn("rounded-sm text-blue-700 underline-offset-2 hover:underline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-500 dark:text-blue-400", className)} {...props} />;
}
