"use client";

import { useSyncExternalStore } from "react";

type Theme = "light" | "dark" | "system";
const order: Theme[] = ["system", "light", "dark"];

function readTheme(): Theme {
  const stored = window.localStorage.getItem("gapwatch-theme");
  return stored === "light" || stored === "dark" ? stored : "system";
}

/** Applies a theme to <html>: an explicit choice wins, otherwise the system preference. */
function applyTheme(theme: Theme): void {
  const dark = theme === "dark" || (theme === "system" && window.matchMedia("(prefers-color-scheme: dark)").matches);
  document.documentElement.classList.toggle("dark", dark);
}

const listeners = new Set<() => void>();
function subscribe(listener: () => void) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Cycles system → light → dark; the choice is kept in localStorage. */
export function ThemeToggle() {
  const theme = useSyncExternalStore(subscribe, readTheme, () => "system" as Theme);
  const next = order[(order.indexOf(theme) + 1) % order.length]!;
  return (
    <button
      type="button"
      onClick={() => {
        if (next === "system") window.localStorage.removeItem("gapwatch-theme");
        else window.localStorage.setItem("gapwatch-theme", next);
        applyTheme(next);
        listeners.forEach((l) => l());
      }}
      className="rounded border border-zinc-300 px-2 py-1 text-xs hover:bg-zinc-100 focus-visible:outline-2 focus-visible:outline-blue-500 dark:border-zinc-700 dark:hover:bg-zinc-800"
      aria-label={`Theme: ${theme}. Switch to ${next}.`}
    >
      Theme: {theme}
    </button>
  );
}

/** Inline script for <head>: sets the dark class before first paint (no flash). */
export const themeBootScript = `(function(){try{var t=localStorage.getItem("gapwatch-theme");var d=t==="dark"||(t!=="light"&&matchMedia("(prefers-color-scheme: dark)").matches);if(d)document.documentElement.classList.add("dark")}catch(e){}})();`;
