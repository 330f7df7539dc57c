/** Writing configs as nats-server's encoding/json does. */

/** What Go's `omitempty` leaves out: zero values, empty strings and empty lists. */
export function isGoEmpty(value: unknown): boolean {
  return (
    value === undefined ||
    value === null ||
    value === '' ||
    value === 0 ||
    value === false ||
    (Array.isArray(value) && value.length === 0)
  );
}
