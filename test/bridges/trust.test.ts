import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../cli/main.js';
import { checkInvariants, readJsonlLog } from '../../session/index.js';
import { captureIO } from '../e2e/support/captureIO.js';
import { useScratchSessions } from './harness.js';
import { marks, writeProject } from './trustProject.js';

describe('I06 a folder’s own settings load only when the folder is trusted', () => {
  const scratch = useScratchSessions();

  async function setup() {
    const cwd = await scratch();
    const data = await scratch();
    await writeProject(cwd);
    const script = path.join(data, 'script.json');
    await writeFile(
      script,
      JSON.stringify([
        { toolCalls: [{ id: 'c1', name: 'Bash', arguments: { command: 'touch made.txt' } }] },
        { text: 'done' },
      ]),
    );
    let runs = 0;
    /** One `seamchart run` in `cwd` with no terminal; the session file is checked against the invariants. */
    const run = async (...extra: string[]) => {
      runs += 1;
      const io = captureIO();
      Object.assign(io.env, { SEAMCHART_DATA_HOME: data });
      const session = path.join(data, `run${runs}.jsonl`);
      const args = ['run', 'hello', '--model', `scripted:${script}`, '--tools', 'demo', '--cwd', cwd];
      const code = await main([...args, '--session', session, '--approve', 'no', ...extra], io);
      const { events } = await readJsonlLog(session);
      expect(checkInvariants(events)).toEqual([]);
      const made = existsSync(path.join(cwd, 'made.txt'));
      await rm(path.join(cwd, 'made.txt'), { force: true });
      return { code, err: io.err(), made };
    };
    return { cwd, data, run, trustFile: path.join(data, 'trusted-folders.json') };
  }

  it('I06 with no terminal and no --trust nothing from the folder loads and one line on stderr says why', async () => {
    const { cwd, run, trustFile } = await setup();
    const first = await run();
    expect(first.code).toBe(0);
    // No hook ran and the deny rule decided nothing: Bash touched the file.
    expect(await marks(cwd)).toEqual([]);
    expect(first.made).toBe(true);
    expect(first.err).toBe(
      `seamchart: not loading .claude/settings.json, .claude/settings.local.json, .codex/hooks.json of ${cwd}: the folder is not trusted (answer at a terminal, or pass --trust)\n`,
    );
    // Nothing was answered, so nothing is remembered.
    expect(existsSync(trustFile)).toBe(false);
  });

  it('I06 --trust loads the folder’s settings and hooks and is remembered for the folder and these files; a changed file is not trusted', async () => {
    const { cwd, run, trustFile } = await setup();
    const trusted = await run('--trust');
    expect(trusted.err).toBe('');
    expect(trusted.made).toBe(false); // the project's deny rule decided
    expect(await marks(cwd)).toEqual(['session-start', 'codex-prompt', 'pre-tool-use']);
    const remembered = JSON.parse(await readFile(trustFile, 'utf8'));
    expect(Object.keys(remembered.folders)).toEqual([cwd]);
    expect(remembered.folders[cwd].trusted).toBe(true);

    // Remembered: the next run without --trust (and without a terminal) loads them.
    const again = await run();
    expect(again.err).toBe('');
    expect(again.made).toBe(false);
    expect((await marks(cwd)).length).toBe(6);

    // A changed file is a different set of files: not loaded until trusted again.
    await writeFile(
      path.join(cwd, '.claude', 'settings.local.json'),
      JSON.stringify({
        hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: 'echo changed >> marks.log' }] }] },
      }),
    );
    const changed = await run();
    expect(changed.made).toBe(true);
    expect((await marks(cwd)).length).toBe(6);
    expect(changed.err).toBe(
      `seamchart: not loading .claude/settings.json, .claude/settings.local.json, .codex/hooks.json of ${cwd}: they changed since you trusted the folder (answer at a terminal, or pass --trust)\n`,
    );
    // A new file counts as a change too, and trust is per folder: a copy elsewhere is not trusted.
    const other = await scratch();
    await writeProject(other);
    const io = captureIO();
    Object.assign(io.env, { SEAMCHART_DATA_HOME: path.dirname(trustFile) });
    expect(
      await main(
        ['run', 'hi', '--model', `scripted:${path.dirname(trustFile)}/script.json`, '--cwd', other],
        io,
      ),
    ).toBe(0);
    expect(io.err()).toContain(`of ${other}: the folder is not trusted`);
    expect(await marks(other)).toEqual([]);
  });

  it('I06 a settings file named with --claude-settings is the person’s own choice and loads in an untrusted folder', async () => {
    const { cwd, run } = await setup();
    const result = await run('--claude-settings', path.join(cwd, '.claude', 'settings.json'));
    // The named file loads (its hook and its deny rule); the folder's other files still wait for trust.
    expect(result.made).toBe(false);
    expect(await marks(cwd)).toEqual(['session-start']);
    expect(result.err).toBe(
      `seamchart: not loading .claude/settings.local.json, .codex/hooks.json of ${cwd}: the folder is not trusted (answer at a terminal, or pass --trust)\n`,
    );
  });

  it('I06 a trusted-folders file that does not parse is a clear error (exit 2) and is left as it was', async () => {
    const { cwd, data, trustFile } = await setup();
    await writeFile(trustFile, '{"version": 1, "fol');
    const io = captureIO();
    Object.assign(io.env, { SEAMCHART_DATA_HOME: data });
    const session = path.join(data, 'refused.jsonl');
    const args = ['run', 'hi', '--model', `scripted:${data}/script.json`, '--cwd', cwd, '--session', session];
    expect(await main(args, io)).toBe(2);
    expect(io.err()).toBe(
      `seamchart: the trusted-folders file ${trustFile} is not valid JSON; fix or remove it\n`,
    );
    expect(await readFile(trustFile, 'utf8')).toBe('{"version": 1, "fol');
    expect(existsSync(session)).toBe(false);
    expect(await marks(cwd)).toEqual([]);
  });
});
