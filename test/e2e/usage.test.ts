import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../cli/main.js';
import { checkInvariants, openJsonlStore, readJsonlLog } from '../../session/index.js';
import { beginStream, chunk, sse, useChatServers } from '../unit/model/chatServer.js';
import { captureIO } from './support/captureIO.js';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');
const bin = path.join(root, 'dist/cli/bin.js');

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'seamchart-usage-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function file(name: string, content: string): Promise<string> {
  const target = path.join(dir, name);
  await writeFile(target, content);
  return target;
}

async function cli(argv: string[], env: NodeJS.ProcessEnv = {}) {
  const io = captureIO();
  Object.assign(io.env, env);
  const code = await main(argv, io);
  return { code, out: io.out(), err: io.err() };
}

describe('U01 help, version and unknown flags', () => {
  it('U01 --help and -h list every command with an example, exit 0', async () => {
    for (const flag of ['--help', '-h']) {
      const { code, out } = await cli([flag]);
      expect(code).toBe(0);
      for (const command of ['run', 'log', 'visualize']) expect(out).toMatch(new RegExp(`\\n  ${command} `));
      expect(out).toContain('Examples:');
    }
  });

  it('U01 run --help describes every flag and shows an example and the script format', async () => {
    const { code, out } = await cli(['run', '--help']);
    expect(code).toBe(0);
    const flags = [
      '--prompt',
      '--instructions',
      '--instructions-file',
      '--max-steps',
      '--mcp-config',
      '--model',
      '--base-url',
      '--model-name',
      '--api-key-env',
      '--claude-settings',
      '--codex-hooks',
      '--tools',
      '--cwd',
      '--approve',
      '--session',
      '--resume',
      '--break-lock',
      '--json',
      '--no-color',
      '--inspect-log',
    ];
    for (const flag of flags) {
      // "  --flag <value>   description": the description follows on the same line.
      expect(out, flag).toMatch(new RegExp(`\\n  ${flag}( <[a-z]+>)?\\s{2,}\\S`));
    }
    expect(out).toContain('seamchart run "list the files" --model scripted:script.json');
    expect(out).toContain('"toolCalls"');
  });

  it('U01 <command> -h works for log and visualize', async () => {
    for (const command of ['log', 'visualize']) {
      const { code, out } = await cli([command, '-h']);
      expect(code).toBe(0);
      expect(out).toContain(`Usage: seamchart ${command}`);
      expect(out).toContain('Example:');
    }
  });

  it('U01 --version prints the package version (the built command too)', async () => {
    const { version } = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as {
      version: string;
    };
    expect((await cli(['--version'])).out.trim()).toBe(version);
    const { stdout } = await run(process.execPath, [bin, '--version']);
    expect(stdout.trim()).toBe(version);
  });

  it('U01 an unknown flag prints one line naming the closest flag and exits 2', async () => {
    const { code, err, out } = await cli(['run', 'hi', '--modle', 'openai']);
    expect(code).toBe(2);
    expect(out).toBe('');
    expect(err.trimEnd().split('\n')).toEqual([
      "seamchart: unknown option '--modle' (did you mean --model?)",
    ]);
    const far = await cli(['run', 'hi', '--zzzzzz']);
    expect(far.code).toBe(2);
    expect(far.err.trimEnd().split('\n')).toHaveLength(1);
    const command = await cli(['rnu']);
    expect(command.code).toBe(2);
    expect(command.err).toMatch(/unknown command 'rnu' \(did you mean run\?\)/);
  });
});

describe('U05 bad input exits 2 and leaves nothing behind', () => {
  async function expectBadInput(argv: string[], message: RegExp, env: NodeJS.ProcessEnv = {}) {
    const before = (await readdir(dir, { recursive: true })).sort();
    const { code, err } = await cli(argv, env);
    expect(code, argv.join(' ')).toBe(2);
    expect(err.trimEnd().split('\n'), argv.join(' ')).toHaveLength(1);
    expect(err).toMatch(message);
    expect(err).not.toMatch(/openJsonlStore|createJsonlStore|createAgent|TypeError/);
    expect((await readdir(dir, { recursive: true })).sort(), argv.join(' ')).toEqual(before);
  }

  it('U05 flags, URLs, keys, paths, configs and scripts', async () => {
    const script = await file('script.json', JSON.stringify([{ text: 'hi' }]));
    const model = ['--model', `scripted:${script}`];
    const session = ['--session', path.join(dir, 'session.jsonl')];
    await expectBadInput(['run', 'hi', '--nope', ...session], /unknown option '--nope'/);
    await expectBadInput(['run', ...model, ...session], /needs a prompt/);
    await expectBadInput(['run', 'hi', '--approve', 'maybe', ...model, ...session], /--approve/);
    await expectBadInput(['run', 'hi', '--tools', 'all', ...model, ...session], /--tools/);
    await expectBadInput(['run', 'hi', '--model', 'gpt', ...session], /--model expects/);
    await expectBadInput(
      ['run', 'hi', '--model', 'openai', '--base-url', 'not a url', ...session],
      /--base-url/,
      { OPENAI_API_KEY: 'k' },
    );
    await expectBadInput(['run', 'hi', '--model', 'openai', ...session], /no API key: set \$OPENAI_API_KEY/);
    await expectBadInput(
      ['run', 'hi', '--model', 'openai', '--api-key-env', 'MY_KEY', ...session],
      /\$MY_KEY/,
    );
    await expectBadInput(
      ['run', 'hi', '--model', `scripted:${path.join(dir, 'nope.json')}`, ...session],
      /no such file/,
    );
    const malformed = await file('bad-script.json', JSON.stringify([{ nonsense: 1 }]));
    await expectBadInput(['run', 'hi', '--model', `scripted:${malformed}`, ...session], /bad-script\.json/);
    await expectBadInput(
      ['run', 'hi', ...model, '--claude-settings', path.join(dir, 'none.json'), ...session],
      /none\.json/,
    );
    const hooks = await file(
      'settings.json',
      JSON.stringify({ hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: 42 }] }] } }),
    );
    await expectBadInput(
      ['run', 'hi', ...model, '--claude-settings', hooks, ...session],
      /hooks\.PreToolUse\[0\]/,
    );
    await expectBadInput(
      ['run', 'hi', ...model, '--cwd', path.join(dir, 'typo/deeper'), ...session],
      /--cwd .*never created/,
    );
    await expectBadInput(
      ['run', 'hi', ...model, '--session', path.join(dir, 'missing/s.jsonl')],
      /--session .*no such directory/,
    );
    await expectBadInput(
      ['run', 'hi', ...model, ...session, '--inspect-log', path.join(dir, 'missing/inspect.jsonl')],
      /--inspect-log .*no such directory/,
    );
    await expectBadInput(['run', 'hi', ...model, '--resume'], /--resume needs --session/);
    await expectBadInput(['run', 'hi', ...model, ...session, '--max-steps', '0'], /--max-steps/);
    await expectBadInput(['run', 'hi', ...model, ...session, '--max-steps', 'many'], /--max-steps/);
    await expectBadInput(
      ['run', 'hi', ...model, ...session, '--instructions-file', path.join(dir, 'none.md')],
      /--instructions-file .*no such file/,
    );
    await expectBadInput(
      ['run', 'hi', ...model, ...session, '--instructions', 'a', '--instructions-file', script],
      /not both/,
    );
    await expectBadInput(
      ['run', 'hi', ...model, '--resume', ...session],
      /--resume: cannot read session file/,
    );
    await expectBadInput(['log', path.join(dir, 'nothing.jsonl')], /nothing\.jsonl/);
    await expectBadInput(['visualize', '--format', 'png'], /--format/);
  });

  it('U05 an existing session without --resume, and a corrupt one with it, are left untouched', async () => {
    const script = await file('script.json', JSON.stringify([{ text: 'hi' }]));
    const target = path.join(dir, 'session.jsonl');
    expect((await cli(['run', 'first', '--model', `scripted:${script}`, '--session', target])).code).toBe(0);
    const written = await readFile(target, 'utf8');
    await expectBadInput(
      ['run', 'again', '--model', `scripted:${script}`, '--session', target],
      /already exists; add --resume to continue it/,
    );
    expect(await readFile(target, 'utf8')).toBe(written);

    const lines = written.trimEnd().split('\n');
    const corrupt = `${[lines[0], '{not json', ...lines.slice(1)].join('\n')}\n`;
    await writeFile(target, corrupt);
    await expectBadInput(
      ['run', 'again', '--model', `scripted:${script}`, '--session', target, '--resume'],
      /line 2/,
    );
    expect(await readFile(target, 'utf8')).toBe(corrupt);
  });
});

describe('U05 a locked session', () => {
  it('U05 a session another store holds exits 2 naming the holder; --break-lock takes over only a foreign lock', async () => {
    const script = await file('script.json', JSON.stringify([{ text: 'one' }, { text: 'two' }]));
    const target = path.join(dir, 'session.jsonl');
    expect((await cli(['run', 'first', '--model', `scripted:${script}`, '--session', target])).code).toBe(0);
    const before = await readFile(target, 'utf8');
    const resume = (...flags: string[]) =>
      cli(['run', 'again', '--model', `scripted:${script}`, '--session', target, '--resume', ...flags]);
    const holder = await openJsonlStore(target);
    try {
      const locked = await resume();
      expect(locked.code).toBe(2);
      expect(locked.err.trimEnd().split('\n')).toHaveLength(1);
      expect(locked.err).toMatch(
        new RegExp(`session file .*session\\.jsonl is in use by process ${process.pid} on this host`),
      );
      expect(locked.err).not.toMatch(/breakLock|store|--break-lock/);
      expect(await readFile(target, 'utf8')).toBe(before);
    } finally {
      await holder.close().catch(() => {});
    }
    // A lock from another host: the hint appears, and --break-lock takes it over.
    const foreign = { pid: 4242, host: 'elsewhere.example', since: '2025-01-01T00:00:00.000Z', nonce: 'n' };
    await writeFile(`${target}.lock`, JSON.stringify(foreign));
    const foreignLocked = await resume();
    expect(foreignLocked.code).toBe(2);
    expect(foreignLocked.err).toMatch(
      /in use by process 4242 on elsewhere\.example .*; if that run is gone, add --break-lock/,
    );
    expect((await resume('--break-lock')).code).toBe(0);
    const { events } = await readJsonlLog(target);
    expect(checkInvariants(events)).toEqual([]);
    expect(events.filter((e) => e.type === 'turn/start')).toHaveLength(2);
  });
});

describe('run, as a person reads it', () => {
  const startChatServer = useChatServers();

  it('--resume on a crashed file says what was repaired before the run starts', async () => {
    const script = await file('script.json', JSON.stringify([{ text: 'one' }, { text: 'two' }]));
    const target = path.join(dir, 'session.jsonl');
    expect((await cli(['run', 'first', '--model', `scripted:${script}`, '--session', target])).code).toBe(0);
    // A crash mid-turn: a turn was opened and the last line is torn.
    const text = await readFile(target, 'utf8');
    const seq = text.trimEnd().split('\n').length - 1;
    const open = JSON.stringify({
      seq,
      type: 'turn/start',
      data: { turn: 2, trigger: { kind: 'message', source: { kind: 'user' } } },
      time: new Date(0).toISOString(),
    });
    await writeFile(target, `${text}${open}\n{"seq":${seq + 1},"ty`);
    const script2 = await file('script2.json', JSON.stringify([{ text: 'three' }]));
    const { code, err, out } = await cli([
      'run',
      'next',
      '--model',
      `scripted:${script2}`,
      '--session',
      target,
      '--resume',
    ]);
    expect(code).toBe(0);
    expect(err).toMatch(/repaired .*session\.jsonl before resuming/);
    expect(err).toMatch(/torn last line/);
    expect(out).toContain('❯ next');
    const { events } = await readJsonlLog(target);
    expect(checkInvariants(events)).toEqual([]);
    const ends = events
      .filter((e) => e.type === 'turn/end')
      .map((e) => (e.data as { reason: { kind: string } }).reason.kind);
    expect(ends).toEqual(['completed', 'interrupted', 'completed']);
  });

  it('shows a failing SessionStart hook and a hook systemMessage, each once', async () => {
    const settings = await file(
      'settings.json',
      JSON.stringify({
        hooks: {
          SessionStart: [{ hooks: [{ type: 'command', command: 'echo boom >&2; exit 3' }] }],
          PreToolUse: [
            {
              matcher: 'Bash',
              hooks: [{ type: 'command', command: `echo '{"systemMessage":"careful with Bash"}'` }],
            },
          ],
        },
      }),
    );
    const script = await file(
      'script.json',
      JSON.stringify([
        { toolCalls: [{ id: 'c1', name: 'Bash', arguments: { command: 'echo hi' } }] },
        { text: 'ok' },
      ]),
    );
    const { code, out, err } = await cli([
      'run',
      'hi',
      '--model',
      `scripted:${script}`,
      '--claude-settings',
      settings,
      '--tools',
      'demo',
      '--cwd',
      dir,
    ]);
    expect(code).toBe(0);
    expect(out).toMatch(/^! .*SessionStart.*exited with code 3: boom$/m);
    expect(out.match(/careful with Bash/g)).toHaveLength(1);
    expect(out).toMatch(/● Bash\(echo hi\)\n.*careful with Bash\n\s+⎿ hi\n/);
    expect(err).toBe('');
  });

  it('--json prints the log events and nothing else', async () => {
    const script = await file('script.json', JSON.stringify([{ text: 'one' }]));
    const target = path.join(dir, 'session.jsonl');
    const { code, out } = await cli([
      'run',
      'hi',
      '--json',
      '--model',
      `scripted:${script}`,
      '--session',
      target,
    ]);
    expect(code).toBe(0);
    const printed = out
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as unknown);
    const { events } = await readJsonlLog(target);
    expect(printed).toEqual(JSON.parse(JSON.stringify(events)));
  });

  it('--instructions reaches the model as the system prompt; --max-steps ends a looping turn', async () => {
    const server = await startChatServer((res) => {
      beginStream(res);
      res.write(
        sse(
          chunk({
            role: 'assistant',
            tool_calls: [
              {
                index: 0,
                id: 'c1',
                type: 'function',
                function: { name: 'Bash', arguments: '{"command":"true"}' },
              },
            ],
          }),
        ),
      );
      res.write(sse(chunk({}, 'tool_calls')));
      res.end(sse('[DONE]'));
    });
    const instructions = await file('instructions.md', 'Answer in French.');
    const { code, out } = await cli([
      'run',
      'loop',
      '--model',
      'openai',
      '--base-url',
      server.baseURL,
      '--tools',
      'demo',
      '--cwd',
      dir,
      '--instructions-file',
      instructions,
      '--max-steps',
      '2',
    ]);
    expect(code).toBe(1);
    expect(out).toMatch(/── turn 1 max-steps.* · 2 steps/);
    expect(server.received).toHaveLength(2);
    const messages = (server.received[0]!.body as { messages: { role: string; content: unknown }[] })
      .messages;
    expect(messages[0]).toEqual({ role: 'system', content: 'Answer in French.' });
  });

  it('a loopback --base-url needs no API key and sends none', async () => {
    const server = await startChatServer((res) => {
      beginStream(res);
      res.write(sse(chunk({ role: 'assistant', content: 'local answer' })));
      res.write(sse(chunk({}, 'stop')));
      res.end(sse('[DONE]'));
    });
    const { code, out } = await cli(['run', 'hi', '--model', 'openai', '--base-url', server.baseURL]);
    expect(code).toBe(0);
    expect(out).toContain('local answer');
    expect(server.received[0]?.headers.authorization).toBeUndefined();
  });
});
