import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** How long Glob and Grep may search before the call fails (default), in milliseconds. */
export const DEFAULT_SEARCH_TIMEOUT_MS = 30_000;

const resolvePackage = createRequire(import.meta.url).resolve;

// Plain CommonJS run with `eval: true`, so it works from the sources and from dist alike. Everything that runs
// a user's pattern (a RegExp, a glob compiled by picomatch, tinyglobby's crawl) runs here, off the main thread:
// a pattern that backtracks without end only blocks this worker, which the deadline or a cancel terminates.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const picomatch = require(workerData.picomatch);
const { glob } = require(workerData.tinyglobby);
const answer = (run) => {
  Promise.resolve()
    .then(run)
    .then(
      (value) => parentPort.postMessage({ ok: true, value }),
      (error) => parentPort.postMessage({ ok: false, message: String((error && error.message) || error) }),
    );
};
// The compiled pattern and filter belong to this worker's one search, held in its closure.
const createSearch = () => {
  let regexp;
  let keep = () => true;
  return (request) => {
    if (request.kind === 'glob') return glob(request.pattern, request.options);
    if (request.kind === 'compile') {
      regexp = new RegExp(request.pattern);
      if (request.filter !== undefined) keep = picomatch(request.filter, { basename: true });
      return null;
    }
    if (request.kind === 'filter') return request.paths.filter((file) => keep(file));
    const hits = [];
    const lines = request.text.split('\\n');
    for (let index = 0; index < lines.length && hits.length < request.limit; index++)
      if (regexp.test(lines[index])) hits.push(index);
    return hits;
  };
};
const search = createSearch();
parentPort.on('message', (request) => answer(() => search(request)));
`;

/** What the worker is asked: a glob crawl, compiling a grep's pattern and filter, filtering paths, or a text. */
type SearchRequest =
  | { kind: 'glob'; pattern: string; options: { cwd: string; onlyFiles: true; followSymbolicLinks: false } }
  | { kind: 'compile'; pattern: string; filter: string | undefined }
  | { kind: 'filter'; paths: readonly string[] }
  | { kind: 'grep'; text: string; limit: number };

/**
 * One Glob or Grep call's pattern work, in a worker thread with a deadline: past `timeoutMs`, or when `signal`
 * aborts, the worker is terminated (a catastrophic pattern cannot block the process) and the call fails.
 */
export class PatternSearch {
  readonly #worker: Worker;
  readonly #deadline: number;
  readonly #what: string;

  constructor(
    what: string,
    private readonly options: { timeoutMs: number; signal: AbortSignal },
  ) {
    this.#what = what;
    this.#deadline = Date.now() + options.timeoutMs;
    this.#worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { picomatch: resolvePackage('picomatch'), tinyglobby: resolvePackage('tinyglobby') },
    });
    // An idle worker must not keep the process alive; each request holds it while it waits.
    this.#worker.unref();
  }

  /** Files under `cwd` matching a glob `pattern` (tinyglobby), relative to `cwd`; symbolic links not followed. */
  glob(pattern: string, cwd: string): Promise<string[]> {
    return this.#ask({
      kind: 'glob',
      pattern,
      options: { cwd, onlyFiles: true, followSymbolicLinks: false },
    });
  }

  /** Compiles a grep's regular expression and its optional basename glob filter (a bad one rejects). */
  compile(pattern: string, filter: string | undefined): Promise<null> {
    return this.#ask({ kind: 'compile', pattern, filter });
  }

  /** The paths the compiled filter keeps. */
  filter(paths: readonly string[]): Promise<string[]> {
    return this.#ask({ kind: 'filter', paths });
  }

  /** The 0-based numbers of `text`'s lines the compiled pattern matches, at most `limit`. */
  grep(text: string, limit: number): Promise<number[]> {
    return this.#ask({ kind: 'grep', text, limit });
  }

  /** Ends the worker (idempotent). */
  close(): void {
    void this.#worker.terminate();
  }

  #ask<TValue>(request: SearchRequest): Promise<TValue> {
    const { signal, timeoutMs } = this.options;
    const worker = this.#worker;
    return new Promise<TValue>((resolve, reject) => {
      const settle = (outcome: () => void): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.unref();
        outcome();
      };
      const fail = (error: Error): void =>
        settle(() => {
          void worker.terminate();
          reject(error);
        });
      const onMessage = (reply: { ok: boolean; value?: TValue; message?: string }): void =>
        settle(() =>
          reply.ok ? resolve(reply.value as TValue) : reject(new Error(`${this.#what}: ${reply.message}`)),
        );
      const onError = (error: Error): void => fail(error);
      const onAbort = (): void =>
        fail(signal.reason instanceof Error ? signal.reason : new Error(`${this.#what}: cancelled`));
      const timer = setTimeout(
        () =>
          fail(
            new Error(
              `${this.#what}: the search did not finish within ${timeoutMs} ms and was stopped; ` +
                'a pattern with nested repetition (such as ^(a+)+$) can take forever — simplify it or narrow the path',
            ),
          ),
        Math.max(0, this.#deadline - Date.now()),
      );
      if (signal.aborted) {
        onAbort();
        return;
      }
      signal.addEventListener('abort', onAbort, { once: true });
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.ref();
      worker.postMessage(request);
    });
  }
}
