import v8 from "node:v8";
import vm from "node:vm";

let collect: (() => void) | null = null;

/**
 * Runs a full garbage collection before a memory reading. `npm run bench` starts tsx without
 * --expose-gc, so the flag is set at run time and `gc` taken from a fresh context.
 */
export function collectGarbage(): void {
  if (!collect) {
    v8.setFlagsFromString("--expose-gc");
    const gc: unknown = vm.runInNewContext("gc");
    collect = typeof gc === "function" ? () => void gc() : () => undefined;
  }
  collect();
}
