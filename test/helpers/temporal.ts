import type { temporal } from '@temporalio/proto';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** Seconds of a protobuf Duration (its `seconds` is a Long or a number). */
export function durationSeconds(d: temporal.api.history.v1.ITimerStartedEventAttributes['startToFireTimeout']): number {
  if (!d) return Number.NaN;
  return Number(d.seconds ?? 0) + (d.nanos ?? 0) / 1e9;
}

/** Milliseconds since epoch of a protobuf Timestamp. */
export function timestampMs(t: HistoryEvent['eventTime']): number {
  if (!t) return Number.NaN;
  return Number(t.seconds ?? 0) * 1000 + Math.floor((t.nanos ?? 0) / 1e6);
}

export function eventsOfType(
  events: readonly HistoryEvent[] | null | undefined,
  attribute: keyof HistoryEvent,
): HistoryEvent[] {
  return (events ?? []).filter((e) => e[attribute] != null);
}
