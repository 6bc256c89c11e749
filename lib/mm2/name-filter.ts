/**
 * The include/exclude filter MM2's DefaultTopicFilter and DefaultGroupFilter share
 * (apache/kafka connect/mirror/.../DefaultTopicFilter.java, DefaultGroupFilter.java,
 * MirrorUtils.compilePatternList):
 * - each setting is a Connect LIST (ConfigDef.parseType): the value is trimmed; empty → no items;
 *   otherwise it is split on `\s*,\s*`, empty items kept;
 * - the items are joined with `|` into ONE Java Pattern, and a name must match it whole
 *   (`pattern.matcher(name).matches()`); an empty list compiles to no pattern at all, so an empty
 *   include takes nothing and an empty exclude drops nothing;
 * - a name is taken when the include matches and the exclude does not.
 * JavaScript's RegExp agrees with Java for the usual syntax; a setting whose joined pattern does
 * not compile here (invalid, or Java-only syntax such as `(?i)` or possessive quantifiers) is
 * reported in `invalid`, and its items are then compiled one by one (those that fail match nothing).
 */

/** A compiled include/exclude pair. */
export interface NameFilter {
  /** True when the include list matches `name` whole and the exclude list does not. */
  matches(name: string): boolean;
  included(name: string): boolean;
  excluded(name: string): boolean;
  /** Items (or whole settings) that did not compile as JavaScript regular expressions. */
  invalid: string[];
}

/** Splits a Connect LIST value as ConfigDef.parseType does. */
function parseConnectList(value: string): string[] {
  const trimmed = value.trim();
  return trimmed === "" ? [] : trimmed.split(/\s*,\s*/);
}

/** Compiles an include and an exclude LIST setting into a filter (see the rules above). */
export function compileNameFilter(include: string, exclude: string): NameFilter {
  const invalid: string[] = [];
  const includePattern = compilePatternList(parseConnectList(include), invalid);
  const excludePattern = compilePatternList(parseConnectList(exclude), invalid);
  const included = (name: string): boolean => includePattern !== null && includePattern(name);
  const excluded = (name: string): boolean => excludePattern !== null && excludePattern(name);
  return { matches: (name) => included(name) && !excluded(name), included, excluded, invalid };
}

/** MirrorUtils.compilePatternList: null for an empty list, else one full-match test of the joined items. */
function compilePatternList(items: readonly string[], invalid: string[]): ((name: string) => boolean) | null {
  if (items.length === 0) return null;
  const joined = anchor(items.join("|"));
  if (joined !== null) return (name) => joined.test(name);
  const compiled: RegExp[] = [];
  const failed: string[] = [];
  for (const item of items) {
    const re = anchor(item);
    if (re === null) failed.push(item);
    else compiled.push(re);
  }
  // Every item compiles alone but not joined (e.g. back-references across items): blame the setting.
  invalid.push(...(failed.length > 0 ? failed : [items.join(",")]));
  return (name) => compiled.some((re) => re.test(name));
}

function anchor(pattern: string): RegExp | null {
  try {
    return new RegExp(`^(?:${pattern})$`);
  } catch {
    return null;
  }
}
