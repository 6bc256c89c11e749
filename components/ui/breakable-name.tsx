import { Fragment } from "react";

/**
 * A Kafka name (topic, group) that may wrap on a narrow screen: a line break is allowed after each `.`, `-` and `_`
 * (`east.checkpoints.internal` wraps as `east.` / `checkpoints.` / `internal`), so words are not cut mid-way.
 */
export function BreakableName({ name }: { name: string }) {
  const parts = name.split(/(?<=[.\-_])/);
  return (
    <>
      {parts.map((part, i) => (
        <Fragment key={i}>
          {part}
          {i < parts.length - 1 ? <wbr /> : null}
        </Fragment>
      ))}
    </>
  );
}
