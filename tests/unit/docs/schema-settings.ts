import { z } from "zod";

/** One setting of the config file: its key path as docs/configuration.md writes it, and its default, if any. */
export interface SchemaSetting {
  /** `clusters[].tls.ca`, `flows.<flow>.rpoSeconds`, `thresholds.lagRecords`. */
  path: string;
  /** The default zod fills in for an omitted key; undefined when the key has none (required or optional). */
  defaultValue: unknown;
}

/**
 * Lists every key path of a zod object schema, containers included (a container is a setting too: `server`,
 * `server.proxyAuth`). Wrappers (optional, default, prefault, nullable) are looked through, a transform's input
 * is walked, arrays add `[]`, records add `.<flow>` (the only record of the config is keyed by flow id), and
 * every object option of a union is walked (`tls: true` or `tls: { ca }`).
 */
export function listSchemaSettings(schema: z.ZodType, prefix = ""): SchemaSetting[] {
  const inner = unwrapSchema(schema);
  if (inner instanceof z.ZodObject) {
    return Object.entries(inner.shape as Record<string, z.ZodType>).flatMap(([key, child]) => {
      const path = prefix === "" ? key : `${prefix}.${key}`;
      return [{ path, defaultValue: readDefault(child) }, ...listSchemaSettings(child, path)];
    });
  }
  if (inner instanceof z.ZodArray) return listSchemaSettings(inner.element as z.ZodType, `${prefix}[]`);
  if (inner instanceof z.ZodRecord) return listSchemaSettings(inner.valueType as z.ZodType, `${prefix}.<flow>`);
  if (inner instanceof z.ZodUnion) {
    return (inner.options as z.ZodType[]).flatMap((option) => listSchemaSettings(option, prefix));
  }
  return [];
}

/** The schema under optional/default/prefault/nullable wrappers and a transform's pipe (its input side). */
function unwrapSchema(schema: z.ZodType): z.ZodType {
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodNullable) return unwrapSchema(schema.unwrap() as z.ZodType);
  if (schema instanceof z.ZodDefault || schema instanceof z.ZodPrefault) {
    return unwrapSchema(schema.unwrap() as z.ZodType);
  }
  if (schema instanceof z.ZodPipe) return unwrapSchema(schema.in as z.ZodType);
  return schema;
}

/** The value zod fills in for an omitted key (outermost default wins, as in zod's own parse). */
function readDefault(schema: z.ZodType): unknown {
  if (schema instanceof z.ZodDefault || schema instanceof z.ZodPrefault) return schema.def.defaultValue;
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodNullable) return readDefault(schema.unwrap() as z.ZodType);
  if (schema instanceof z.ZodPipe) return readDefault(schema.in as z.ZodType);
  return undefined;
}
