import { createHash } from "node:crypto";
import type { GapwatchConfig } from "@/lib/config";
import type { ReadModel } from "@/lib/pipeline/read-model";
import { selectAnswers } from "./answers";

/**
 * What a cycle's pipeline produced, without its inputs (the snapshot and history it was given) or the wall clock
 * (`builtAt`): translations and their errors, alerts with their states and times, risks, the catch-up window, the
 * content audit. Two pipelines that agree on these serve the same pages and API answers from the same snapshot.
 */
export function selectOutputs(model: ReadModel): Record<string, unknown> {
  return {
    translations: model.translations,
    translationErrors: model.translationErrors,
    // By key: pages and the API order alerts themselves; the list's order is how the store happened to load them.
    alerts: [...model.alerts].sort((a, b) => a.key.localeCompare(b.key)),
    risks: [...model.risks].sort((a, b) => a.key.localeCompare(b.key)),
    progress: model.progress,
    audit: model.audit,
  };
}

/**
 * A value as canonical JSON: object keys sorted, Maps as entry lists and Sets as value lists sorted by their own
 * canonical text (insertion order is how a pipeline happened to build them, not what it answers), bigints and
 * typed arrays as decimal strings, undefined properties left out.
 */
export function toCanonicalJson(value: unknown): string {
  if (value === null || typeof value === "number" || typeof value === "boolean" || typeof value === "string") {
    return JSON.stringify(value);
  }
  if (typeof value === "bigint") return JSON.stringify(`${value}n`);
  if (value instanceof Map) {
    const entries = [...value].map(([k, v]) => `[${toCanonicalJson(k)},${toCanonicalJson(v)}]`);
    return `{"$map":[${entries.sort().join(",")}]}`;
  }
  if (value instanceof Set) return `{"$set":[${[...value].map(toCanonicalJson).sort().join(",")}]}`;
  if (ArrayBuffer.isView(value)) return JSON.stringify(`${value.constructor.name}:${String(value)}`);
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? "null" : toCanonicalJson(v))).join(",")}]`;
  if (typeof value === "object") {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record).filter((k) => record[k] !== undefined).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${toCanonicalJson(record[k])}`).join(",")}}`;
  }
  throw new Error(`cannot put a ${typeof value} into a digest`);
}

/**
 * SHA-256 of a cycle's outputs as canonical JSON (16 hex digits are plenty to tell two runs apart), without the
 * outputs named in `without` (e.g. `progress`, the in-memory catch-up window a restart begins anew).
 */
export function digestOutputs(model: ReadModel, without: readonly string[] = []): string {
  const outputs = selectOutputs(model);
  for (const name of without) delete outputs[name];
  return createHash("sha256").update(toCanonicalJson(outputs)).digest("hex").slice(0, 16);
}

/** SHA-256 (16 hex digits) of what the API answers from the cycle's read model (scripts/replay/answers.ts). */
export function digestAnswers(model: ReadModel, config: GapwatchConfig): string {
  return createHash("sha256").update(toCanonicalJson(selectAnswers(model, config))).digest("hex").slice(0, 16);
}
