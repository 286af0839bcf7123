import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkInvariants, readJsonlLog } from '../../session/index.js';
import { beginStream, chunk, sse, useChatServers } from '../unit/model/chatServer.js';
import { quote, Terminal } from './support/terminal.js';

// The built CLI (test/e2e/support/buildOnce.ts builds dist/ before the suite), run as a person runs it.
const bin = path.resolve(import.meta.dirname, '../../dist/cli/bin.js');
const seamchart = `${quote(process.execPath)} ${quote(bin)}`;

let dir: string;
const terminals: Terminal[] = [];
const startChatServer = useChatServers();

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'seamchart-u-'));
});
afterEach(async () => {
  await Promise.all(terminals.splice(0).map((terminal) => terminal.close()));
  await rm(dir, { recursive: true, force: true });
});

async function open(args: string, env: Record<string, string> = {}): Promise<Terminal> {
  const terminal = await Terminal.start(`${seamchart} ${args}`, { cwd: dir, env });
  terminals.push(terminal);
  return terminal;
}

async function file(name: string, content: unknown): Promise<string> {
  const target = path.join(dir, name);
  await writeFile(target, typeof content === 'string' ? content : JSON.stringify(content));
  return target;
}

/** A Claude Code settings file with one PreToolUse hook for Bash running `script` (sh). */
async function preToolUseHook(script: string): Promise<string> {
  const hook = await file('hook.sh', script);
  return file('settings.json', {
    hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: `sh ${hook}` }] }] },
  });
}

async function session(name = 'session.jsonl') {
  const { events, repairs } = await readJsonlLog(path.join(dir, name));
  return { events, repairs, violations: checkInvariants(events) };
}

function turnEnds(events: readonly { type: string; data: unknown }[]): string[] {
  return events
    .filter((e) => e.type === 'turn/end')
    .map((e) => (e.data as { reason: { kind: string } }).reason.kind);
}

/** Whether a pid is a live (non-zombie) process. */
async function alive(pid: number): Promise<boolean> {
  const status = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  return status !== undefined && !/^\d+ \(.*\) Z/.test(status);
}

async function pidFrom(name: string, terminal: Terminal): Promise<number> {
  const target = path.join(dir, name);
  for (let i = 0; i < 300; i++) {
    const text = await readFile(target, 'utf8').catch(() => '');
    if (text.trim() !== '') return Number(text.trim());
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${name} was never written; the screen shows:\n${await terminal.screen()}`);
}

describe('U02 the transcript in a pseudo-terminal', () => {
  it('U02 streamed text appears before the step ends, and no status line is left on screen', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const server = await startChatServer(async (res) => {
      beginStream(res);
      res.write(sse(chunk({ role: 'assistant', content: 'Streaming the first half' })));
      await released; // the test has seen the first half on screen
      res.write(sse(chunk({ content: ' and the second half.' })));
      res.write(sse(chunk({}, 'stop')));
      res.end(sse('[DONE]'));
    });
    const terminal = await open(
      `run 'say something' --model openai --base-url ${server.baseURL} --model-name local --session session.jsonl`,
    );
    const early = await terminal.waitFor((s) => s.includes('Streaming the first half'), 'the first delta');
    expect(early).not.toContain('second half');
    expect(early).not.toMatch(/── turn 1/);
    release();
    expect(await terminal.exitCode()).toBe(0);
    const screen = await terminal.screen();
    expect(screen).toContain('❯ say something');
    expect(screen).toContain('Streaming the first half and the second half.');
    expect(screen).toMatch(/── turn 1 completed · 1 step/);
    expect(screen).not.toContain('…'); // the status line ("… waiting for the model") was erased
    expect(screen).not.toMatch(/assistant\/message|step\/start/); // a transcript, not an event dump
    expect((await session()).violations).toEqual([]);
  });

  it('U02 the live status line says what the run waits for and leaves nothing on screen', async () => {
    const script = await file('script.json', [
      { delayMs: 2000, toolCalls: [{ id: 'c1', name: 'Bash', arguments: { command: 'echo listed' } }] },
      { text: 'Listed.' },
    ]);
    const terminal = await open(`run 'list things' --model scripted:${script} --tools demo`);
    const waiting = await terminal.waitFor((s) => s.includes('… waiting for the model'), 'the status line');
    expect(waiting).toContain('❯ list things');
    expect(await terminal.exitCode()).toBe(0);
    const screen = await terminal.screen();
    expect(screen).not.toContain('…');
    expect(screen.split('\n')).toEqual([
      '❯ list things',
      '● Bash(echo listed)',
      '  ⎿ listed',
      'Listed.',
      expect.stringMatching(/^── turn 1 completed · 2 steps · \d+(\.\d)?s$/),
    ]);
  });

  it('U02 colour on a terminal, none with NO_COLOR or --no-color', async () => {
    const script = await file('script.json', [
      { toolCalls: [{ id: 'c1', name: 'Bash', arguments: { command: 'echo one; echo two' } }] },
      { text: 'All done.' },
    ]);
    const args = `run hello --model scripted:${script} --tools demo`;
    const coloured = await open(args);
    expect(await coloured.exitCode()).toBe(0);
    const colouredScreen = await coloured.screen(true);
    expect(colouredScreen).toContain('\x1b[');

    const noColour = await open(args, { NO_COLOR: '1' });
    expect(await noColour.exitCode()).toBe(0);
    const plain = await noColour.screen(true);
    expect(plain).not.toContain('\x1b[');
    expect(plain).toContain('● Bash(echo one; echo two)');
    expect(plain).toMatch(/⎿ one\n\s+two/);
    expect(plain).toContain('All done.');

    const flag = await open(`${args} --no-color`);
    expect(await flag.exitCode()).toBe(0);
    expect(await flag.screen(true)).not.toContain('\x1b[');
  });
});

describe('U03 the approval prompt in a pseudo-terminal', () => {
  const askHook =
    'cat > /dev/null\necho \'{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"touching files needs a human"}}\'\n';
  const writeProof = [
    { toolCalls: [{ id: 'c1', name: 'Bash', arguments: { command: 'echo ran > proof.txt' } }] },
    { text: 'Finished.' },
  ];

  async function runWithAsk(extra = ''): Promise<Terminal> {
    const settings = await preToolUseHook(askHook);
    const script = await file('script.json', writeProof);
    return open(
      `run 'write the proof' --model scripted:${script} --tools demo --claude-settings ${settings} --session session.jsonl ${extra}`,
      { NO_COLOR: '1' },
    );
  }

  function result(events: readonly { type: string; data: unknown }[]) {
    return events.find((e) => e.type === 'tool/result')?.data as {
      isError: boolean;
      content: { text: string }[];
    };
  }

  it('U03 an ask prompts with the tool, its arguments and the reason; y runs the call', async () => {
    const terminal = await runWithAsk();
    const prompt = await terminal.waitFor((s) => s.includes('allow?'), 'the approval prompt');
    expect(prompt).toContain('Bash(echo ran > proof.txt) needs your approval');
    expect(prompt).toContain('reason: touching files needs a human');
    await terminal.keys('y', 'Enter');
    expect(await terminal.exitCode()).toBe(0);
    expect(await readFile(path.join(dir, 'proof.txt'), 'utf8')).toBe('ran\n');
    const { events, violations } = await session();
    expect(result(events).isError).toBe(false);
    expect(violations).toEqual([]);
  });

  it('U03 n denies the call, and the reason typed reaches the model', async () => {
    const terminal = await runWithAsk();
    await terminal.waitFor((s) => s.includes('allow?'), 'the approval prompt');
    await terminal.keys('n', 'Enter');
    await terminal.waitFor((s) => s.includes('reason for the model'), 'the reason prompt');
    await terminal.keys('not on a Friday', 'Enter');
    expect(await terminal.exitCode()).toBe(0);
    await expect(stat(path.join(dir, 'proof.txt'))).rejects.toThrow();
    const screen = await terminal.screen();
    expect(screen).toMatch(/⎿ denied by you: .*not on a Friday/);
    const { events, violations } = await session();
    expect(result(events).isError).toBe(true);
    // The tool result is what the next model request carries (requests derive from the log).
    expect(result(events).content[0]?.text).toContain('not on a Friday');
    expect(violations).toEqual([]);
  });

  it('U03 a allows the tool for the rest of the session: the next ask is not prompted', async () => {
    const settings = await preToolUseHook(askHook);
    const script = await file('script.json', [
      { toolCalls: [{ id: 'c1', name: 'Bash', arguments: { command: 'echo 1 > first.txt' } }] },
      { toolCalls: [{ id: 'c2', name: 'Bash', arguments: { command: 'echo 2 > second.txt' } }] },
      { text: 'Both written.' },
    ]);
    const terminal = await open(
      `run 'write two' --model scripted:${script} --tools demo --claude-settings ${settings} --session session.jsonl`,
      { NO_COLOR: '1' },
    );
    await terminal.waitFor((s) => s.includes('allow?'), 'the approval prompt');
    await terminal.keys('a', 'Enter');
    expect(await terminal.exitCode()).toBe(0);
    expect((await terminal.screen()).match(/needs your approval/g)).toHaveLength(1);
    expect(await readFile(path.join(dir, 'second.txt'), 'utf8')).toBe('2\n');
    const { events, violations } = await session();
    expect(
      events.filter((e) => e.type === 'tool/result').map((e) => (e.data as { isError: boolean }).isError),
    ).toEqual([false, false]);
    expect(violations).toEqual([]);
  });

  it('U03 Ctrl-C at the prompt cancels the turn', async () => {
    const terminal = await runWithAsk();
    await terminal.waitFor((s) => s.includes('allow?'), 'the approval prompt');
    await terminal.keys('C-c');
    expect(await terminal.exitCode()).toBe(130);
    await expect(stat(path.join(dir, 'proof.txt'))).rejects.toThrow();
    const { events, violations } = await session();
    expect(turnEnds(events)).toEqual(['aborted']);
    expect(violations).toEqual([]);
  });

  it('U03 --approve no denies without prompting', async () => {
    const terminal = await runWithAsk('--approve no');
    expect(await terminal.exitCode()).toBe(0);
    const screen = await terminal.screen();
    expect(screen).not.toContain('allow?');
    expect(screen).toMatch(/⎿ denied by --approve no/);
    await expect(stat(path.join(dir, 'proof.txt'))).rejects.toThrow();
    const { events, violations } = await session();
    expect(result(events).isError).toBe(true);
    // The model is told why: no one approved, and why approval was asked.
    expect(result(events).content[0]?.text).toContain('touching files needs a human');
    expect(violations).toEqual([]);
  });
});

describe('U04 Ctrl-C in a pseudo-terminal', () => {
  it('U04 Ctrl-C mid-stream ends the turn aborted, durable, exit 130', async () => {
    const server = await startChatServer(async (res, { closed }) => {
      beginStream(res);
      res.write(sse(chunk({ role: 'assistant', content: 'Thinking out loud' })));
      await closed; // never finishes: only the cancel ends this request
    });
    const terminal = await open(
      `run 'take your time' --model openai --base-url ${server.baseURL} --model-name local --session session.jsonl`,
    );
    await terminal.waitFor((s) => s.includes('Thinking out loud'), 'the first delta');
    await terminal.keys('C-c');
    expect(await terminal.exitCode()).toBe(130);
    const { events, repairs, violations } = await session();
    expect(repairs).toEqual([]); // closed by the run itself, not by crash repair
    expect(turnEnds(events)).toEqual(['aborted']);
    expect(violations).toEqual([]);
  });

  it('U04 Ctrl-C during a Bash command and its hook leaves no process behind', async () => {
    // The hook records its pid and lets the call through; the command records its pid and sleeps.
    const settings = await preToolUseHook(
      'cat > /dev/null\necho $$ > hook.pid\nsleep 300 &\necho $! > hook-child.pid\nwait\n',
    );
    const script = await file('script.json', [
      { toolCalls: [{ id: 'c1', name: 'Bash', arguments: { command: 'echo $$ > tool.pid; sleep 300' } }] },
      { text: 'never reached' },
    ]);
    const terminal = await open(
      `run 'sleep a while' --model scripted:${script} --tools demo --claude-settings ${settings} --session session.jsonl`,
    );
    const hookPid = await pidFrom('hook.pid', terminal);
    const hookChild = await pidFrom('hook-child.pid', terminal);
    await terminal.keys('C-c');
    expect(await terminal.exitCode()).toBe(130);
    expect(await alive(hookPid)).toBe(false);
    expect(await alive(hookChild)).toBe(false);
    const { events, violations } = await session();
    expect(turnEnds(events)).toEqual(['aborted']);
    expect(violations).toEqual([]);
  });

  it('U04 Ctrl-C while a tool that ignores SIGINT and SIGTERM runs kills its process group', async () => {
    const script = await file('script.json', [
      {
        toolCalls: [
          {
            id: 'c1',
            name: 'Bash',
            arguments: {
              command: "trap '' TERM INT; echo $$ > tool.pid; sleep 300 & echo $! > tool-child.pid; wait",
            },
          },
        ],
      },
      { text: 'never reached' },
    ]);
    const terminal = await open(
      `run 'stubborn' --model scripted:${script} --tools demo --session session.jsonl`,
    );
    const toolPid = await pidFrom('tool.pid', terminal);
    const toolChild = await pidFrom('tool-child.pid', terminal);
    await terminal.keys('C-c');
    expect(await terminal.exitCode()).toBe(130);
    expect(await alive(toolPid)).toBe(false);
    expect(await alive(toolChild)).toBe(false);
    const { events, violations } = await session();
    expect(turnEnds(events)).toEqual(['aborted']);
    expect(violations).toEqual([]);
  });

  it('U04 a second Ctrl-C exits at once, kills what is left, and the session file still loads', async () => {
    // A SessionStart hook that ignores SIGTERM holds the run for up to a minute: only a second
    // Ctrl-C ends it quickly.
    const hook = await file(
      'start.sh',
      "cat > /dev/null\ntrap '' TERM\necho $$ > start.pid\nsleep 300 &\necho $! > start-child.pid\nwait\n",
    );
    const settings = await file('settings.json', {
      hooks: { SessionStart: [{ hooks: [{ type: 'command', command: `sh ${hook}` }] }] },
    });
    const script = await file('script.json', [{ text: 'never reached' }]);
    const terminal = await open(
      `run 'hello' --model scripted:${script} --claude-settings ${settings} --session session.jsonl`,
    );
    const hookPid = await pidFrom('start.pid', terminal);
    const hookChild = await pidFrom('start-child.pid', terminal);
    await terminal.keys('C-c');
    await terminal.waitFor((s) => s.includes('Ctrl-C again'), 'the cancel notice');
    await terminal.keys('C-c');
    expect(await terminal.exitCode(10_000)).toBe(130);
    expect(await alive(hookPid)).toBe(false);
    expect(await alive(hookChild)).toBe(false);
    const { violations } = await session();
    expect(violations).toEqual([]);
  });
});
