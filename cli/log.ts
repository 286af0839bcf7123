import { parseArgs } from 'node:util';
import { checkInvariants, formatViolation, readJsonlLog, SessionLoadError } from '../session/index.js';
import { describeEvent } from './print.js';
import { UsageError } from './usage.js';

/**
 * `seamchart log FILE [--check]`: pretty-prints a session log (a live one too, never locking or writing it);
 * `--check` runs the invariants.
 * @returns the exit code: 0 ok, 1 a violated invariant, 2 bad input
 */
export async function runLogCommand(argv: string[], write: (line: string) => void): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { check: { type: 'boolean', default: false }, json: { type: 'boolean', default: false } },
    allowPositionals: true,
    strict: true,
  });
  const [file, ...extra] = positionals;
  if (file === undefined || extra.length > 0) throw new UsageError('seamchart log takes exactly one FILE');
  let loaded: Awaited<ReturnType<typeof readJsonlLog>>;
  try {
    loaded = await readJsonlLog(file);
  } catch (error) {
    if (error instanceof SessionLoadError) throw new UsageError(error.message);
    throw error;
  }
  for (const event of loaded.events) write(values.json ? JSON.stringify(event) : describeEvent(event));
  for (const repair of loaded.repairs) write(`repaired in memory (file untouched): ${repair}`);
  const { writer, beingWritten } = loaded;
  if (writer !== undefined) {
    write(`live session: written by process ${writer.pid} on ${writer.host} since ${writer.since}`);
    if (beingWritten !== undefined)
      write(`line ${beingWritten.line}: being written (${beingWritten.bytes} bytes so far)`);
  }
  if (!values.check) return 0;
  // A live session's last turn may still be open.
  const violations = checkInvariants(loaded.events, { open: writer !== undefined });
  for (const violation of violations) write(formatViolation(violation));
  write(violations.length === 0 ? 'invariants: ok' : `invariants: ${violations.length} violation(s)`);
  return violations.length === 0 ? 0 : 1;
}
