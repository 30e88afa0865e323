/** A clock for pure logic under test: `now` in milliseconds, moved only by `advance`. */
export const fakeClock = (start = 1_000_000) => {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
};
