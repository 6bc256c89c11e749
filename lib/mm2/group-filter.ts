/**
 * Which consumer groups MirrorCheckpointConnector checkpoints: DefaultGroupFilter
 * (apache/kafka connect/mirror/.../DefaultGroupFilter.java), the include/exclude rules of
 * name-filter.ts over `groups` (default `.*`) and `groups.exclude`
 * (MirrorCheckpointConfig.GROUPS_EXCLUDE_DEFAULT, `console-consumer-.*, connect-.*, __.*`).
 */
import { compileNameFilter, type NameFilter } from "./name-filter";

/** MM2's default `groups.exclude`. */
export const defaultGroupsExclude = "console-consumer-.*, connect-.*, __.*";

/** MM2's default `groups`. */
export const defaultGroupsInclude = ".*";

/** Compiles MM2's `groups` / `groups.exclude` settings into a predicate. */
export function compileGroupFilter(groups: string = defaultGroupsInclude, exclude: string = defaultGroupsExclude): NameFilter {
  return compileNameFilter(groups, exclude);
}

/**
 * The checkpoint connector's group settings. `groups.blacklist` is the deprecated alias of
 * `groups.exclude` that Kafka 2.7–3.9 honour when `groups.exclude` is not set (ConfigUtils.
 * translateDeprecatedConfigs) and 4.0 removed (KAFKA-17529); it is applied here, which can only
 * keep more groups out of the checkpoint freshness rule, never flag one MM2 skips.
 */
export function readGroupFilterSettings(config: Readonly<Record<string, string>>): { groups: string; groupsExclude: string } {
  return {
    groups: config.groups ?? defaultGroupsInclude,
    groupsExclude: config["groups.exclude"] ?? config["groups.blacklist"] ?? defaultGroupsExclude,
  };
}
