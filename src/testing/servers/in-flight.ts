/** Requests a test server saw, as far as overlap goes: when each began and when it closed (null: still open). */
export interface TimedRequest {
  startedAt: number;
  closedAt: number | null;
}

/** Most requests open at one instant; a response that closed in the millisecond the next one began did not overlap. */
export function maxInFlight(entries: readonly TimedRequest[]): number {
  const events = entries.flatMap((entry) => [
    { at: entry.startedAt, delta: 1 },
    { at: entry.closedAt ?? Number.POSITIVE_INFINITY, delta: -1 },
  ]);
  events.sort((a, b) => a.at - b.at || a.delta - b.delta);
  let open = 0;
  let most = 0;
  for (const event of events) {
    open += event.delta;
    most = Math.max(most, open);
  }
  return most;
}
