/** The longest line (in bytes, without its newline) the writer produces and the loader accepts: 16 MiB. */
export const DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024;
