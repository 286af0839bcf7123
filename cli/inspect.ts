import { watch } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { createServer, type Server, type ServerResponse } from 'node:http';
import path from 'node:path';
import { type Command, InvalidArgumentError } from 'commander';
import {
  type InspectSource,
  inspectModelOf,
  type LogEvent,
  readJsonlLog,
  readPostgresLog,
  renderInspectorPage,
  SessionLoadError,
  scriptSafeJson,
} from '../index.js';
import { type CliCommand, type CliIO, UsageError } from './command.js';
import { databaseUrlOf } from './databaseFlags.js';

interface InspectOptions {
  out?: string;
  serve?: boolean;
  port?: number;
  databaseUrl?: string;
  session?: string;
}

/** One read of the session: its events and whether a live process is still writing it. */
interface SessionRead {
  readonly events: readonly LogEvent[];
  readonly sessionId?: string;
  readonly live: boolean;
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new InvalidArgumentError('expected a port number from 0 to 65535');
  return port;
}

/**
 * `seamchart inspect SESSION [--out FILE.html] [--serve] [--port N]`: writes the inspector page of a
 * session (one self-contained HTML file) and prints its path; `--serve` also serves it on 127.0.0.1
 * and pushes every change of the session to the open page (server-sent events). Read-only: it never
 * takes the session's lock.
 */
export const inspectCommand: CliCommand = {
  name: 'inspect',
  configure(command: Command) {
    command
      .description('write an HTML page that shows a session: timeline, calls, deciders, hooks, charts')
      .argument('[session]', 'a session file written by seamchart run --session')
      .option('--out <file>', 'where to write the page (default: next to the session, <name>.inspect.html)')
      .option('--serve', 'serve the page on 127.0.0.1 and update it live while the session is written')
      .option('--port <n>', 'the port for --serve (default: a free one)', parsePort)
      .option('--database-url <url>', 'read the session from PostgreSQL (with --session)')
      .option('--session <id>', 'the session id to read from --database-url')
      .addHelpText('after', '\nExample:\n  seamchart inspect session.jsonl --serve\n');
  },
  async run(command: Command, io: CliIO) {
    const [file] = command.args as [string | undefined];
    const options = command.opts<InspectOptions>();
    if (file !== undefined && options.databaseUrl !== undefined)
      throw new UsageError('give a session file or --database-url, not both');
    if (options.databaseUrl !== undefined) return inspectPostgres(io, options);
    if (file === undefined) throw new UsageError('give the session file to inspect');
    if (options.port !== undefined && !options.serve) throw new UsageError('--port needs --serve');
    const read = (): Promise<SessionRead> => readSession(file);
    const first = await read();
    const title = path.basename(file);
    const source = (current: SessionRead, follow: boolean): InspectSource => ({
      events: current.events,
      title,
      ...(current.sessionId === undefined ? {} : { sessionId: current.sessionId }),
      live: current.live,
      follow,
    });
    const out = options.out ?? defaultOutput(file);
    await writeFile(out, await renderInspectorPage(source(first, false)));
    io.stdout.write(`wrote ${out}\n`);
    if (!options.serve) return 0;
    return serve(io, file, options.port ?? 0, async () => source(await read(), true));
  },
};

// A session in PostgreSQL, read without its lease (a live one too); --serve follows files only.
async function inspectPostgres(io: CliIO, options: InspectOptions): Promise<number> {
  if (options.session === undefined) throw new UsageError('--database-url needs --session ID');
  if (options.serve)
    throw new UsageError('--serve follows a session file; write the page once with --database-url');
  const sessionId = options.session;
  const databaseUrl = databaseUrlOf(options.databaseUrl, io.env);
  let events: Awaited<ReturnType<typeof readPostgresLog>>;
  try {
    events = await readPostgresLog({ connectionString: databaseUrl, sessionId });
  } catch (error) {
    if (error instanceof SessionLoadError) throw new UsageError(error.message);
    throw error;
  }
  const out = options.out ?? `${sessionId.replace(/[^A-Za-z0-9._-]/g, '_')}.inspect.html`;
  await writeFile(
    out,
    await renderInspectorPage({ events, title: sessionId, sessionId, live: false, follow: false }),
  );
  io.stdout.write(`wrote ${out}\n`);
  return 0;
}

function defaultOutput(file: string): string {
  const base = file.endsWith('.jsonl') ? file.slice(0, -'.jsonl'.length) : file;
  return `${base}.inspect.html`;
}

async function readSession(file: string): Promise<SessionRead> {
  try {
    const loaded = await readJsonlLog(file);
    return { events: loaded.events, sessionId: loaded.sessionId, live: loaded.writer !== undefined };
  } catch (error) {
    if (error instanceof SessionLoadError) throw new UsageError(error.message);
    throw error;
  }
}

/**
 * Serves the page until SIGINT/SIGTERM; each change of the session file is read again and sent to
 * every open page as one server-sent event carrying the new model.
 */
async function serve(
  io: CliIO,
  file: string,
  port: number,
  current: () => Promise<InspectSource>,
): Promise<number> {
  const clients = new Set<ServerResponse>();
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (request.method !== 'GET') {
      response.writeHead(405, { allow: 'GET' }).end();
      return;
    }
    if (url.pathname === '/events') {
      response.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-store',
        connection: 'keep-alive',
      });
      response.write(': connected\n\n');
      clients.add(response);
      request.on('close', () => clients.delete(response));
      return;
    }
    if (url.pathname !== '/') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    current()
      .then(renderInspectorPage)
      .then((page) => response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page))
      .catch((error: unknown) =>
        response.writeHead(500, { 'content-type': 'text/plain' }).end(`${(error as Error).message}\n`),
      );
  });
  await listen(server, port);
  const address = server.address();
  const bound = typeof address === 'object' && address !== null ? address.port : port;
  io.stdout.write(`serving http://127.0.0.1:${bound}/ (Ctrl-C to stop)\n`);
  // Changes come in bursts (one line per event): one read per burst, never two at once.
  let reading = false;
  let again = false;
  const push = async (): Promise<void> => {
    if (reading) {
      again = true;
      return;
    }
    reading = true;
    try {
      do {
        again = false;
        const source = await current();
        const message = `data: ${scriptSafeJson(inspectModelOf(source))}\n\n`;
        for (const client of clients) client.write(message);
      } while (again);
    } catch (error) {
      io.stderr.write(`inspect: ${(error as Error).message}\n`);
    } finally {
      reading = false;
    }
  };
  const watcher = watch(file, () => void push());
  return new Promise<number>((resolve) => {
    const unsubscribe = io.onSignal(() => {
      unsubscribe();
      watcher.close();
      for (const client of clients) client.end();
      server.close(() => resolve(0));
      server.closeAllConnections();
    });
  });
}

function listen(server: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        error.code === 'EADDRINUSE'
          ? new UsageError(`port ${port} on 127.0.0.1 is in use; choose another with --port`)
          : error,
      );
    });
    server.listen(port, '127.0.0.1', () => resolve());
  });
}
