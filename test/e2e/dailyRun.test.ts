// J07, J08, J09: `seamchart run` for daily use — project instructions, a resumed session's folder and
// tools, retries on a rate limit, and a transcript that keeps each result under its call.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../cli/main.js';
import { checkInvariants, readJsonlLog } from '../../session/index.js';
import { beginStream, chunk, sse, useChatServers } from '../unit/model/chatServer.js';
import { captureIO } from './support/captureIO.js';

const startChatServer = useChatServers();
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'seamchart-daily-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function script(name: string, steps: unknown[]): string {
  const file = path.join(dir, name);
  writeFileSync(file, JSON.stringify(steps));
  return file;
}

/** A server that answers every request with `text`. */
function answering(text: string) {
  return startChatServer((res) => {
    beginStream(res);
    res.write(sse(chunk({ role: 'assistant', content: text })));
    res.write(sse(chunk({}, 'stop')));
    res.end(sse('[DONE]'));
  });
}

function systemOf(body: unknown): string | undefined {
  const first = (body as { messages: { role: string; content: string }[] }).messages[0];
  return first?.role === 'system' ? first.content : undefined;
}

async function checkedEvents(file: string) {
  const { events, repairs } = await readJsonlLog(file);
  expect(repairs).toEqual([]);
  expect(checkInvariants(events)).toEqual([]);
  return events;
}

describe('J07 project instructions and a resumed session', () => {
  it('J07 AGENTS.md and CLAUDE.md of the working folder are the instructions, after --instructions; --no-project-instructions leaves them out', async () => {
    const server = await answering('ok');
    const project = path.join(dir, 'project');
    mkdirSync(project);
    writeFileSync(path.join(project, 'AGENTS.md'), 'Use pnpm.\n');
    writeFileSync(path.join(project, 'CLAUDE.md'), 'Never push to main.\n');
    const base = ['--model', 'openai', '--base-url', server.baseURL, '--cwd', project];
    expect(await main(['run', 'hi', ...base, '--instructions', 'Be brief.'], captureIO())).toBe(0);
    expect(systemOf(server.received[0]?.body)).toBe(
      [
        'Be brief.',
        `# AGENTS.md (instructions for ${project})\n\nUse pnpm.`,
        `# CLAUDE.md (instructions for ${project})\n\nNever push to main.`,
      ].join('\n\n'),
    );
    expect(await main(['run', 'hi', ...base, '--no-project-instructions'], captureIO())).toBe(0);
    expect(systemOf(server.received[1]?.body)).toBeUndefined();
  });

  it('J07 the header records the folder and the tools; --resume restores both, and a flag that overrides one says so', async () => {
    const project = path.join(dir, 'project');
    mkdirSync(project);
    writeFileSync(path.join(project, 'notes.md'), 'x');
    const session = path.join(dir, 'session.jsonl');
    const first = script('first.json', [{ text: 'started' }]);
    expect(
      await main(
        [
          'run',
          'start',
          '--model',
          `scripted:${first}`,
          '--cwd',
          project,
          '--tools',
          'demo',
          '--session',
          session,
        ],
        captureIO(),
      ),
    ).toBe(0);
    const header = JSON.parse(readFileSync(session, 'utf8').split('\n')[0] ?? '') as Record<string, unknown>;
    expect(header).toMatchObject({ cwd: project, tools: 'demo' });

    // No --cwd, no --tools: Glob exists (the demo tools) and looks in the session's folder.
    const second = script('second.json', [
      { toolCalls: [{ id: 'g1', name: 'Glob', arguments: { pattern: '*.md' } }] },
      { text: 'found it' },
    ]);
    const resumed = captureIO();
    expect(
      await main(
        ['run', 'again', '--model', `scripted:${second}`, '--session', session, '--resume', '--json'],
        resumed,
      ),
    ).toBe(0);
    const events = await checkedEvents(session);
    const result = events.find((e) => e.type === 'tool/result')?.data as {
      isError: boolean;
      content: { text: string }[];
    };
    expect(result.isError).toBe(false);
    expect(result.content[0]?.text).toContain('notes.md');
    expect(resumed.err()).toBe('');

    const overridden = captureIO();
    const third = script('third.json', [{ text: 'fine' }]);
    expect(
      await main(
        [
          'run',
          'once more',
          '--model',
          `scripted:${third}`,
          '--session',
          session,
          '--resume',
          '--tools',
          'none',
          '--cwd',
          dir,
        ],
        overridden,
      ),
    ).toBe(0);
    expect(overridden.err().trim().split('\n')).toEqual([
      `seamchart: --cwd ${dir} overrides the session's folder ${project}`,
      "seamchart: --tools none overrides the session's tools (demo)",
    ]);
  });
});

describe('J08 request retries', () => {
  it('J08 a RATE_LIMIT with retry-after: 1, then success: the turn ends completed after the wait, shown on the status line', async () => {
    const times: number[] = [];
    const server = await startChatServer((res) => {
      times.push(Date.now());
      if (times.length === 1) {
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' });
        res.end(JSON.stringify({ error: { message: 'slow down' } }));
        return;
      }
      beginStream(res);
      res.write(sse(chunk({ role: 'assistant', content: 'made it' })));
      res.write(sse(chunk({}, 'stop')));
      res.end(sse('[DONE]'));
    });
    const io = captureIO();
    const status = { ...io, stderr: { write: io.stderr.write, isTTY: true } };
    const session = path.join(dir, 'session.jsonl');
    const code = await main(
      ['run', 'hi', '--model', 'openai', '--base-url', server.baseURL, '--session', session],
      status,
    );
    expect(code).toBe(0);
    expect(times).toHaveLength(2);
    // retry-after is honoured (the backoff alone would also be 1 s, so the header is checked below too).
    expect((times[1] ?? 0) - (times[0] ?? 0)).toBeGreaterThanOrEqual(900);
    expect(io.err()).toContain('… RATE_LIMIT: retrying in 1.0s (retry 1 of 3)');
    expect(io.out()).toContain('made it');
    const events = await checkedEvents(session);
    expect(events.filter((e) => e.type === 'turn/end').map((e) => e.data)).toMatchObject([
      { reason: { kind: 'completed' } },
    ]);
  });

  it('J08 the wait follows retry-after (2 s here, not the 1 s backoff); --max-retries 0 lets the failure stand', async () => {
    const times: number[] = [];
    const server = await startChatServer((res) => {
      times.push(Date.now());
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '2' });
      res.end(JSON.stringify({ error: { message: 'slow down' } }));
    });
    const io = captureIO();
    const status = { ...io, stderr: { write: io.stderr.write, isTTY: true } };
    const base = ['run', 'hi', '--model', 'openai', '--base-url', server.baseURL];
    expect(await main([...base, '--max-retries', '1'], status)).toBe(1);
    expect(times).toHaveLength(2);
    expect((times[1] ?? 0) - (times[0] ?? 0)).toBeGreaterThanOrEqual(1900);
    expect(io.err()).toContain('… RATE_LIMIT: retrying in 2.0s (retry 1 of 1)');
    times.length = 0;
    const none = captureIO();
    expect(await main([...base, '--max-retries', '0'], none)).toBe(1);
    expect(times).toHaveLength(1);
    expect(none.out()).toMatch(/error RATE_LIMIT: slow down/);
  }, 20_000);
});

describe('J09 the transcript of tool calls', () => {
  it('J09 parallel calls print each result right under its own call line', async () => {
    const project = path.join(dir, 'project');
    mkdirSync(project);
    writeFileSync(path.join(project, 'a.txt'), 'alpha\n');
    writeFileSync(path.join(project, 'b.txt'), 'bravo\n');
    const steps = script('s.json', [
      {
        toolCalls: [
          { id: 'r1', name: 'Read', arguments: { file_path: 'a.txt' } },
          { id: 'r2', name: 'Read', arguments: { file_path: 'b.txt' } },
          { id: 'g1', name: 'Glob', arguments: { pattern: '*.txt' } },
        ],
      },
      { text: 'done' },
    ]);
    const io = captureIO();
    expect(
      await main(
        ['run', 'read both', '--model', `scripted:${steps}`, '--tools', 'demo', '--cwd', project],
        io,
      ),
    ).toBe(0);
    const lines = io.lines();
    const at = (prefix: string) => lines.findIndex((line) => line.startsWith(prefix));
    for (const [call, result] of [
      ['● Read(a.txt)', 'alpha'],
      ['● Read(b.txt)', 'bravo'],
      ['● Glob(*.txt)', 'a.txt'],
    ] as const) {
      expect(at(call)).toBeGreaterThanOrEqual(0);
      expect(lines[at(call) + 1]).toContain(result);
      expect(lines[at(call) + 1]).toMatch(/^ {2}⎿ /);
    }
  });

  it('J09 a Bash timeout and a non-zero exit show in the transcript', async () => {
    const steps = script('s.json', [
      { toolCalls: [{ id: 'b1', name: 'Bash', arguments: { command: 'sleep 5', timeout: 300 } }] },
      {
        toolCalls: [
          { id: 'b2', name: 'Bash', arguments: { command: 'printf "1\\n2\\n3\\n4\\n5\\n"; exit 3' } },
        ],
      },
      { text: 'done' },
    ]);
    const io = captureIO();
    expect(
      await main(['run', 'go', '--model', `scripted:${steps}`, '--tools', 'demo', '--cwd', dir], io),
    ).toBe(0);
    const lines = io.lines();
    const sleep = lines.findIndex((line) => line.startsWith('● Bash(sleep 5)'));
    expect(lines.slice(sleep + 1, sleep + 3)).toEqual([
      '  ⎿ timed out after 300 ms; process group killed',
      '    (timed out)',
    ]);
    const exit = lines.findIndex((line) => line.startsWith('● Bash(printf'));
    expect(lines.slice(exit + 1, exit + 6)).toEqual([
      '  ⎿ 1',
      '    2',
      '    3',
      '    … +2 lines',
      '    (exit 3)',
    ]);
  }, 20_000);
});
