/** Joins class names, skipping falsy ones (a tiny `cn`, after shadcn's, without tailwind-merge). */
export function cn(...classes: (string | false | null | undefined)[]): string {
  return classes.filter(Boolean).join(" ");
}
