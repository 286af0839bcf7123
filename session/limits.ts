/** The longest line (in bytes, without its newline) the writer produces and the loader accepts: 16 MiB. */
export const DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024;

/** A time stamp as long as any `toISOString()` of this era: a measured line is never shorter than the real one. */
const WIDEST_TIME = '+275760-09-13T00:00:00.000Z';

/**
 * The UTF-8 bytes of the line an event of `type` with `data` would take in a session file, measured before it
 * is appended (with the widest `seq` and `time`), so a delivery that could never be written is refused up front.
 * @param type the event type
 * @param data the event's data, as it would be appended
 */
export function eventLineBytes(type: string, data: unknown): number {
  return Buffer.byteLength(
    JSON.stringify({ seq: Number.MAX_SAFE_INTEGER, type, data, time: WIDEST_TIME }),
    'utf8',
  );
}
