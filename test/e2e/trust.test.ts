// I06: the first run in an untrusted folder asks at the terminal, says what would load, and remembers the answer.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkInvariants, readJsonlLog } from '../../session/index.js';
import { marks, writeProject } from '../bridges/trustProject.js';
import { quote, Terminal } from './support/terminal.js';

const bin = path.resolve(import.meta.dirname, '../../dist/cli/bin.js');
let dir: string;
let project: string;
const terminals: Terminal[] = [];
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'seamchart-trust-'));
  project = path.join(dir, 'project');
  await writeProject(project);
  await writeFile(path.join(dir, 'script.json'), JSON.stringify([{ text: 'all done' }]));
});
afterEach(async () => {
  await Promise.all(terminals.splice(0).map((terminal) => terminal.close()));
  await rm(dir, { recursive: true, force: true });
});

let runs = 0;
/** One `seamchart run` at a real terminal in the project folder; its session file is checked. */
async function open(): Promise<{ terminal: Terminal; checked: () => Promise<void> }> {
  runs += 1;
  const session = path.join(dir, `run${runs}.jsonl`);
  const args = ['run', 'hello', '--model', `scripted:${path.join(dir, 'script.json')}`, '--session', session];
  const terminal = await Terminal.start(
    `${quote(process.execPath)} ${quote(bin)} ${args.map(quote).join(' ')}`,
    {
      cwd: project,
      env: { SEAMCHART_DATA_HOME: path.join(dir, 'data') },
    },
  );
  terminals.push(terminal);
  return {
    terminal,
    checked: async () => {
      const { events } = await readJsonlLog(session);
      expect(checkInvariants(events)).toEqual([]);
    },
  };
}

const QUESTION = 'Trust this folder and load them? [y/N]';

describe('I06 trust asked at a terminal', () => {
  it('I06 the first run asks and says what would load; yes is remembered; a changed file asks again; no loads nothing', async () => {
    const first = await open();
    const asked = await first.terminal.waitFor(
      (s) => s.includes(QUESTION),
      'the trust question',
      15_000,
      true,
    );
    expect(asked).toContain(`${project} has settings of its own`);
    expect(asked).toMatch(
      /\.claude\/settings\.json: hooks on SessionStart running `"\$CLAUDE_PROJECT_DIR"\/\.claude\/hooks\/mark\.sh session-start`; 1 permission rule\(s\)/,
    );
    expect(asked).toContain('.claude/settings.local.json: hooks on PreToolUse running');
    expect(asked).toContain(
      '.codex/hooks.json: hooks on UserPromptSubmit running `echo codex-prompt >> marks.log`',
    );
    // Nothing ran while the question waited.
    expect(await marks(project)).toEqual([]);
    await first.terminal.keys('y', 'Enter');
    await first.terminal.waitFor((s) => s.includes('all done'), 'the turn');
    expect(await first.terminal.exitCode()).toBe(0);
    await first.checked();
    expect(await marks(project)).toEqual(['session-start', 'codex-prompt']);

    // Remembered: the second run does not ask and loads the same files.
    const second = await open();
    expect(await second.terminal.exitCode()).toBe(0);
    expect(await second.terminal.screen()).not.toContain(QUESTION);
    await second.checked();
    expect(await marks(project)).toEqual(['session-start', 'codex-prompt', 'session-start', 'codex-prompt']);

    // A changed file asks again; no loads nothing, and the no is remembered for these contents.
    await writeFile(path.join(project, '.codex', 'hooks.json'), JSON.stringify({ hooks: {} }));
    const third = await open();
    const again = await third.terminal.waitFor(
      (s) => s.includes(QUESTION),
      'the question again',
      15_000,
      true,
    );
    expect(again).toContain(`The settings of ${project} changed since you trusted it`);
    expect(again).toContain('.codex/hooks.json: no hooks or permissions');
    await third.terminal.keys('n', 'Enter');
    expect(await third.terminal.exitCode()).toBe(0);
    await third.checked();
    expect(await third.terminal.screen(false, true)).toContain(
      `seamchart: not loading .claude/settings.json, .claude/settings.local.json, .codex/hooks.json of ${project}: you declined to trust this folder (pass --trust to load them)`,
    );
    expect((await marks(project)).length).toBe(4);

    const fourth = await open();
    expect(await fourth.terminal.exitCode()).toBe(0);
    const screen = await fourth.terminal.screen(false, true);
    expect(screen).not.toContain(QUESTION);
    expect(screen).toContain('you declined to trust this folder');
    expect((await marks(project)).length).toBe(4);
  });
});
