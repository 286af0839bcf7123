// J06: `seamchart` at a terminal with no prompt is a prompt loop on one session.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkInvariants, readJsonlLog } from '../../session/index.js';
import { beginStream, chunk, sse, useChatServers } from '../unit/model/chatServer.js';
import { quote, Terminal } from './support/terminal.js';

const bin = path.resolve(import.meta.dirname, '../../dist/cli/bin.js');
const seamchart = `${quote(process.execPath)} ${quote(bin)}`;
const startChatServer = useChatServers();
let dir: string;
const terminals: Terminal[] = [];
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'seamchart-loop-'));
});
afterEach(async () => {
  await Promise.all(terminals.splice(0).map((terminal) => terminal.close()));
  await rm(dir, { recursive: true, force: true });
});

async function open(args: string): Promise<Terminal> {
  const terminal = await Terminal.start(`${seamchart} ${args}`, { cwd: dir });
  terminals.push(terminal);
  return terminal;
}

const atPrompt = (screen: string): boolean => screen.split('\n').at(-1) === '❯';

async function session() {
  const { events, repairs } = await readJsonlLog(path.join(dir, 'session.jsonl'));
  const ends = events
    .filter((e) => e.type === 'turn/end')
    .map((e) => (e.data as { reason: { kind: string } }).reason.kind);
  const prompts = events
    .filter((e) => e.type === 'user/message')
    .map((e) => (e.data as { content: { text: string }[] }).content[0]?.text);
  return { ends, prompts, repairs, violations: checkInvariants(events) };
}

describe('J06 the prompt loop in a pseudo-terminal', () => {
  it('J06 two prompts, Ctrl-C cancels the second mid-stream, Ctrl-D quits; --resume continues the same session', async () => {
    let requests = 0;
    const server = await startChatServer(async (res, { closed }) => {
      requests += 1;
      beginStream(res);
      if (requests === 2) {
        res.write(sse(chunk({ role: 'assistant', content: 'Thinking out loud' })));
        await closed; // only the cancel ends this one
        return;
      }
      res.write(sse(chunk({ role: 'assistant', content: requests === 1 ? 'first answer' : 'third answer' })));
      res.write(sse(chunk({}, 'stop')));
      res.end(sse('[DONE]'));
    });
    const model = `--model openai --base-url ${server.baseURL} --model-name local --session session.jsonl`;
    const terminal = await open(model);
    await terminal.waitFor(atPrompt, 'the prompt');
    await terminal.keys('hello there', 'Enter');
    await terminal.waitFor(
      (s) => s.includes('first answer') && atPrompt(s),
      'the first answer, then the prompt',
    );
    await terminal.keys('take your time', 'Enter');
    await terminal.waitFor((s) => s.includes('Thinking out loud'), 'the second answer streaming');
    await terminal.keys('C-c');
    const screen = await terminal.waitFor(
      (s) => /── turn 2 aborted/.test(s) && atPrompt(s),
      'the cancelled turn, then the prompt again',
    );
    // Each prompt is on screen once (typed at the prompt, not repeated by the transcript).
    expect(screen.split('\n').filter((line) => line.includes('hello there'))).toEqual(['❯ hello there']);
    expect(screen).toMatch(/── turn 1 completed/);
    await terminal.keys('C-d');
    expect(await terminal.exitCode()).toBe(0);
    const first = await session();
    expect(first.repairs).toEqual([]);
    expect(first.violations).toEqual([]);
    expect(first.ends).toEqual(['completed', 'aborted']);
    expect(first.prompts).toEqual(['hello there', 'take your time']);

    const resumed = await open(`${model} --resume`);
    await resumed.waitFor(atPrompt, 'the prompt of the resumed session');
    await resumed.keys('and now?', 'Enter');
    await resumed.waitFor((s) => s.includes('third answer') && atPrompt(s), 'the third answer');
    await resumed.keys('/exit', 'Enter');
    expect(await resumed.exitCode()).toBe(0);
    const second = await session();
    expect(second.repairs).toEqual([]);
    expect(second.violations).toEqual([]);
    expect(second.ends).toEqual(['completed', 'aborted', 'completed']);
    expect(second.prompts).toEqual(['hello there', 'take your time', 'and now?']);
  }, 60_000);
});

describe('J06 seamchart run -', () => {
  it('J06 reads the prompt from stdin', async () => {
    const script = path.join(dir, 'script.json');
    await writeFile(script, JSON.stringify([{ text: 'read it' }]));
    const running = promisify(execFile)(
      process.execPath,
      [bin, 'run', '-', '--model', `scripted:${script}`, '--session', path.join(dir, 'session.jsonl')],
      { timeout: 20_000 },
    );
    running.child.stdin?.end('summarise this\nsecond line\n');
    const { stdout } = await running;
    expect(stdout).toContain('read it');
    const { prompts, violations, ends } = await session();
    expect(prompts).toEqual(['summarise this\nsecond line']);
    expect(ends).toEqual(['completed']);
    expect(violations).toEqual([]);
  });

  it('J06 an empty stdin is bad input: exit 2, nothing written', async () => {
    const running = promisify(execFile)(
      process.execPath,
      [bin, 'run', '-', '--session', path.join(dir, 'session.jsonl')],
      {
        timeout: 20_000,
      },
    );
    running.child.stdin?.end('');
    const failure = await running.then(
      () => undefined,
      (error: { code?: number; stderr?: string }) => error,
    );
    expect(failure?.code).toBe(2);
    expect(failure?.stderr).toContain('run -: standard input held no prompt');
  });
});
