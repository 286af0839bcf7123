/**
 * A reader that goes away (`seamchart log FILE | head`) is not an error: later output is dropped
 * and the command finishes its work (a run still flushes its session), instead of crashing on EPIPE.
 */
export function ignoreBrokenPipes(
  streams: readonly NodeJS.WriteStream[] = [process.stdout, process.stderr],
): void {
  for (const stream of streams) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
      stream.write = () => true;
    });
  }
}
