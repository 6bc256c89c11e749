import { AlertState } from "@/lib/alerts/types";
import { FindingType } from "@/lib/detect/types";

const selectClass = "rounded border border-zinc-300 bg-white px-2 py-1 text-sm dark:border-zinc-700 dark:bg-zinc-900";

/** Filters as a plain GET form, so every filtered view is a URL an alert can link to. */
export function AlertFilters({ state, type, flow, flows }: { state?: string; type?: string; flow?: string; flows: string[] }) {
  return (
    <form method="get" className="mb-4 flex flex-wrap items-end gap-3" aria-label="Filter alerts">
      <label className="flex flex-col text-xs">
        State
        <select name="state" defaultValue={state ?? ""} className={selectClass}>
          <option value="">any</option>
          {Object.values(AlertState).map((s) => (
            <option key={s}>{s}</option>
          ))}
        </select>
      </label>
      <label className="flex flex-col text-xs">
        Type
        <select name="type" defaultValue={type ?? ""} className={selectClass}>
          <option value="">any</option>
          {Object.values(FindingType).map((t) => (
            <option key={t}>{t}</option>
          ))}
        </select>
      </label>
      <label className="flex flex-col text-xs">
        Flow
        <select name="flow" defaultValue={flow ?? ""} className={selectClass}>
          <option value="">any</option>
          {flows.map((f) => (
            <option key={f}>{f}</option>
          ))}
        </select>
      </label>
      <button type="submit" className="rounded border border-zinc-400 px-3 py-1 text-sm hover:bg-zinc-100 focus-visible:outline-2 focus-visible:outline-blue-500 dark:hover:bg-zinc-800">
        Apply
      </button>
    </form>
  );
}
