import { AlertState } from "@/lib/alerts/types";
import { FindingType } from "@/lib/detect/types";
import { BadRequestError } from "@/lib/errors";

const states = Object.values(AlertState) as string[];
const types = Object.values(FindingType) as string[];

/** Parses `state`, `type` and `flow` query parameters; unknown values get a 400 listing the allowed ones. */
export function parseAlertFilter(params: URLSearchParams): { state?: string; type?: string; flow?: string } {
  const state = params.get("state") ?? undefined;
  const type = params.get("type") ?? undefined;
  const flow = params.get("flow") ?? undefined;
  if (state && !states.includes(state)) throw new BadRequestError(`state must be one of ${states.join(", ")}; got "${state}"`);
  if (type && !types.includes(type)) throw new BadRequestError(`type must be one of ${types.join(", ")}; got "${type}"`);
  if (flow !== undefined && !/^[A-Za-z0-9_.-]+->[A-Za-z0-9_.-]+$/.test(flow)) throw new BadRequestError(`flow must look like east->west; got "${flow}"`);
  return { state, type, flow };
}
