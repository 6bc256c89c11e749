/**
 * Which consumer groups MirrorCheckpointConnector checkpoints: DefaultGroupFilter
 * (connect/mirror/.../DefaultGroupFilter.java) keeps a group when it fully matches one pattern of
 * `groups` (a comma-separated LIST, default `.*`) and none of `groups.exclude` (default
 * `console-consumer-.*, connect-.*, __.*`). Java's `Pattern.matcher(g).matches()` is a full match;
 * patterns are compiled with JavaScript's RegExp, which agrees with Java for the usual syntax.
 */

/** MM2's default `groups.exclude` (MirrorCheckpointConfig.GROUPS_EXCLUDE_DEFAULT). */
export const defaultGroupsExclude = "console-consumer-.*, connect-.*, __.*";

/** MM2's default `groups`. */
export const defaultGroupsInclude = ".*";

/** A compiled include/exclude pair; `invalid` lists patterns that did not compile (they match nothing). */
export interface GroupFilter {
  matches(group: string): boolean;
  invalid: string[];
}

/** Compiles MM2's `groups` / `groups.exclude` settings into a predicate. */
export function compileGroupFilter(groups: string = defaultGroupsInclude, exclude: string = defaultGroupsExclude): GroupFilter {
  const invalid: string[] = [];
  const include = compileList(groups, invalid);
  const excluded = compileList(exclude, invalid);
  return {
    matches: (group) => include.some((re) => re.test(group)) && !excluded.some((re) => re.test(group)),
    invalid,
  };
}

/** Splits a Connect LIST value (commas, surrounding blanks trimmed) and anchors each pattern. */
function compileList(value: string, invalid: string[]): RegExp[] {
  const patterns = value
    .split(",")
    .map((p) => p.trim())
    .filter((p) => p.length > 0);
  const compiled: RegExp[] = [];
  for (const pattern of patterns) {
    try {
      compiled.push(new RegExp(`^(?:${pattern})$`));
    } catch {
      invalid.push(pattern);
    }
  }
  return compiled;
}
