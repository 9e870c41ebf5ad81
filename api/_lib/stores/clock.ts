/**
 * The one clock of the stateful half (docs/architecture.md, "Stores are ports with adapters"): services
 * take a {@link Clock} parameter that defaults to {@link systemClock}, so tests freeze time by passing
 * their own. Times stored and answered are ISO 8601 UTC strings with milliseconds (`toISOString`).
 */

/** A source of the current time. */
export type Clock = () => Date;

/** The machine's clock. */
export const systemClock: Clock = () => new Date();
