import type { Dialect } from "./engine/dialect";
import { all, run, type Work } from "./engine/steps";
import type { TopicLagPoint } from "./types";

const minuteMs = 60_000;
const hourMs = 60 * minuteMs;

/**
 * topic_hours (series.ts) in each dialect: its rows differ (migration 9: a JSON text array of [minute of the hour,
 * lag] in SQLite; `minutes smallint[]` and `lags numeric[]` in PostgreSQL), so these statements are written per
 * dialect; the engine's series code (series.ts) decides what and when.
 */
export interface TopicHours {
  /** Appends each topic's [minute of the hour, lag] at `at` to its hour row, replacing a point of the same minute. */
  record(changed: readonly (readonly [flow: string, topic: string, lag: bigint])[], at: number): Work<void>;
  /** Total lag per topic per minute over [from, to], by topic then time, each topic's last point before `from` at `from`. */
  read(flow: string, from: number, to: number): Work<TopicLagPoint[]>;
  /** Reduces the rows of hours [from, to) to their largest lag at the hour's start. */
  compact(from: number, to: number): Work<void>;
}

/** The dialect's topic_hours statements. */
export function selectTopicHours(dialect: Dialect): TopicHours {
  return dialect.name === "sqlite" ? sqliteTopicHours : postgresTopicHours;
}

/** Drops hour rows before `before`, each topic's newest row kept (carried forward). */
export function* pruneTopicHours(before: number): Work<void> {
  yield* run(
    `DELETE FROM topic_hours AS m WHERE hour < ?
     AND hour < (SELECT MAX(t.hour) FROM topic_hours AS t WHERE t.flow = m.flow AND t.topic = m.topic)`,
    [before],
  );
}

/** Each point of the hour rows, as (at, lag). Built once: a read asks two statements per topic. */
const sqlitePoints = `SELECT hour + (value ->> 0) * ${minuteMs} AS at, value ->> 1 AS lag FROM topic_hours, json_each(topic_hours.data)`;
const sqlitePointsInRange = `${sqlitePoints} WHERE flow = ? AND topic = ? AND hour > ? AND hour <= ? AND at >= ? AND at <= ? ORDER BY at`;
const sqlitePointBefore = `${sqlitePoints} WHERE flow = ? AND topic = ? AND at < ?
  AND hour IN (SELECT hour FROM topic_hours WHERE flow = ? AND topic = ? AND hour < ? ORDER BY hour DESC LIMIT 2)
  ORDER BY at DESC LIMIT 1`;

const sqliteTopicHours: TopicHours = {
  *record(changed, at) {
    const hour = Math.floor(at / hourMs) * hourMs;
    const minuteOfHour = BigInt(Math.floor((at - hour) / minuteMs));
    for (const [flow, topic, sum] of changed) {
      // As integers (a JS number is bound as a REAL: 12 would be stored as 12.0), a lag beyond int64 as a REAL.
      const lag = Number(sum);
      yield* run(
        `INSERT INTO topic_hours (flow, topic, hour, data) VALUES (?, ?, ?, json_array(json_array(?, ?)))
         ON CONFLICT (flow, topic, hour) DO UPDATE SET data = CASE
           WHEN data ->> '$[#-1][0]' = excluded.data ->> '$[0][0]' THEN json_set(data, '$[#-1]', excluded.data -> '$[0]')
           ELSE json_insert(data, '$[#]', excluded.data -> '$[0]') END`,
        [flow, topic, hour, minuteOfHour, Math.abs(lag) < 2 ** 63 ? BigInt(lag) : lag],
      );
    }
  },

  *read(flow, from, to) {
    const topics = yield* all<{ topic: string }>(
      `WITH RECURSIVE t(topic) AS (
         SELECT MIN(topic) FROM topic_hours WHERE flow = ?
         UNION ALL SELECT (SELECT MIN(topic) FROM topic_hours WHERE flow = ? AND topic > t.topic) FROM t WHERE t.topic IS NOT NULL)
       SELECT topic FROM t WHERE topic IS NOT NULL`,
      [flow, flow],
    );
    const points: TopicLagPoint[] = [];
    for (const { topic } of topics) {
      // Hour rows after `from` − 1 h may hold points at or after `from`.
      const rows = yield* all<{ at: number; lag: number }>(sqlitePointsInRange, [flow, topic, from - hourMs, to, from, to]);
      // The last point before `from` is in one of the two newest hour rows before it (the newest may hold only later ones).
      const [previous] =
        rows[0]?.at === from
          ? []
          : yield* all<{ lag: number }>(sqlitePointBefore, [flow, topic, from, flow, topic, from]);
      if (previous !== undefined) points.push({ topic, at: from, lag: previous.lag });
      for (const r of rows) points.push({ topic, at: r.at, lag: r.lag });
    }
    return points;
  },

  *compact(from, to) {
    yield* run(
      `UPDATE topic_hours SET data = json_array(json_array(0, (SELECT MAX(value ->> 1) FROM json_each(topic_hours.data))))
       WHERE hour >= ? AND hour < ? AND (json_array_length(data) > 1 OR data ->> '$[0][0]' <> 0)`,
      [from, to],
    );
  },
};

/** An hour row's last minute is the one being written. */
const sameMinute = "topic_hours.minutes[cardinality(topic_hours.minutes)] = excluded.minutes[1]";
/** Each point of the hour rows `h`, as (at, lag). */
const hourPoints = `unnest(h.minutes, h.lags) AS p(m, lag)`;
/** Rows per INSERT: each column one array parameter. */
const rowsPerStatement = 10_000;

// PostgreSQL-only statements, with PostgreSQL's own numbered placeholders (the runner numbers only `?`).
const postgresTopicHours: TopicHours = {
  *record(changed, at) {
    const hour = Math.floor(at / hourMs) * hourMs;
    const minuteOfHour = Math.floor((at - hour) / minuteMs);
    for (let i = 0; i < changed.length; i += rowsPerStatement) {
      const rows = changed.slice(i, i + rowsPerStatement);
      // Appends the minute and lag to the topic's hour row, or replaces the last lag when it is of the same minute
      // (SET reads the row as it was).
      yield* run(
        `INSERT INTO topic_hours (flow, topic, hour, minutes, lags)
         SELECT f, t, $4::bigint, ARRAY[$5::smallint], ARRAY[l] FROM unnest($1::text[], $2::text[], $3::numeric[]) AS u(f, t, l)
         ON CONFLICT (flow, topic, hour) DO UPDATE SET
           minutes = CASE WHEN ${sameMinute} THEN topic_hours.minutes ELSE topic_hours.minutes || excluded.minutes END,
           lags = CASE WHEN ${sameMinute} THEN topic_hours.lags[1:cardinality(topic_hours.lags) - 1] || excluded.lags
             ELSE topic_hours.lags || excluded.lags END`,
        [rows.map((r) => r[0]), rows.map((r) => r[1]), rows.map((r) => r[2].toString()), hour, minuteOfHour],
      );
    }
  },

  *read(flow, from, to) {
    const rows = yield* all<{ topic: string; at: string; lag: string }>(
      `WITH RECURSIVE t(topic) AS (
         SELECT MIN(topic COLLATE "C") FROM topic_hours WHERE flow = $1
         UNION ALL SELECT (SELECT MIN(topic COLLATE "C") FROM topic_hours WHERE flow = $1 AND topic COLLATE "C" > t.topic) FROM t WHERE t.topic IS NOT NULL)
       SELECT topic, at, lag FROM (
         SELECT t.topic, $2::bigint AS at, b.lag FROM t
           CROSS JOIN LATERAL (
             SELECT p.lag FROM (SELECT hour, minutes, lags FROM topic_hours WHERE flow = $1 AND topic = t.topic AND hour < $2::bigint ORDER BY hour DESC LIMIT 2) AS h,
               ${hourPoints} WHERE h.hour + p.m * ${minuteMs} < $2::bigint ORDER BY h.hour + p.m * ${minuteMs} DESC LIMIT 1) AS b
           WHERE t.topic IS NOT NULL AND NOT EXISTS (
             SELECT 1 FROM topic_hours AS h, ${hourPoints}
             WHERE h.flow = $1 AND h.topic = t.topic AND h.hour > $2::bigint - ${hourMs} AND h.hour <= $2::bigint AND h.hour + p.m * ${minuteMs} = $2::bigint)
         UNION ALL
         SELECT h.topic, h.hour + p.m * ${minuteMs} AS at, p.lag FROM topic_hours AS h, ${hourPoints}
           WHERE h.flow = $1 AND h.hour > $2::bigint - ${hourMs} AND h.hour <= $3::bigint AND h.hour + p.m * ${minuteMs} BETWEEN $2::bigint AND $3::bigint) AS points
       ORDER BY topic COLLATE "C", at`,
      [flow, from, to],
    );
    return rows.map((r) => ({ topic: r.topic, at: Number(r.at), lag: Number(r.lag) }));
  },

  *compact(from, to) {
    yield* run(
      `UPDATE topic_hours SET minutes = ARRAY[0::smallint], lags = ARRAY[(SELECT MAX(l) FROM unnest(lags) AS l)]
       WHERE hour >= $1 AND hour < $2 AND (cardinality(minutes) > 1 OR minutes[1] <> 0)`,
      [from, to],
    );
  },
};
