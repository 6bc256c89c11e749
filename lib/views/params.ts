import { BadRequestError } from "@/lib/errors";

/** Flow ids are `<source>-><target>`, URL-encoded in paths (`east-%3Ewest`). */
export function decodeFlowParam(raw: string): string {
  let id = raw;
  try {
    id = raw.includes("%") ? decodeURIComponent(raw) : raw;
  } catch {
    throw new BadRequestError(`flow must look like <source>-><target> (URL-encoded: east-%3Ewest), got a malformed escape in "${raw}"`);
  }
  if (!/^[A-Za-z0-9_.-]+->[A-Za-z0-9_.-]+$/.test(id)) {
    throw new BadRequestError(`flow must look like <source>-><target> (URL-encoded: east-%3Ewest), got "${id}"`);
  }
  return id;
}

export function parsePartitionParam(raw: string): number {
  if (!/^\d{1,9}$/.test(raw)) throw new BadRequestError(`partition must be a non-negative integer, got "${raw}"`);
  return Number(raw);
}

/** The URL path segment of a flow id. */
export function encodeFlowId(id: string): string {
  return encodeURIComponent(id);
}
