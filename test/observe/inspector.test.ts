import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../cli/main.js';
import { createAgent, createToolRegistry } from '../../machines/index.js';
import { scriptedModel } from '../../model/index.js';
import { createSeams } from '../../seams/index.js';
import { checkInvariants, createJsonlStore } from '../../session/index.js';
import { captureIO } from '../e2e/support/captureIO.js';
import { writeInspectedSession } from './session.js';

const root = path.resolve(import.meta.dirname, '../..');
const artifacts = path.join(root, 'test-artifacts');

let browser: Browser;
let dir: string;

beforeAll(async () => {
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
  dir = await mkdtemp(path.join(tmpdir(), 'seamchart-inspect-'));
  await mkdir(artifacts, { recursive: true });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await rm(dir, { recursive: true, force: true });
});

/** Opens a page with the network cut off; collects console errors and uncaught exceptions. */
async function openOffline(file: string): Promise<{ page: Page; errors: string[]; requests: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1500, height: 1000 }, offline: true });
  const page = await context.newPage();
  const errors: string[] = [];
  const requests: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(String(error)));
  page.on('request', (request) => {
    if (!request.url().startsWith('file:')) requests.push(request.url());
  });
  await page.goto(`file://${file}`);
  return { page, errors, requests };
}

describe('the inspector page', () => {
  it('O02 shows the timeline of a session with parallel calls, a denial, a rewrite, a hook failure and an approval; clicking a call shows its phases, deciders and hook output; no console errors, no network', async () => {
    const session = path.join(dir, 'tidy.jsonl');
    expect(await writeInspectedSession(session, dir)).toEqual([]);
    const io = captureIO();
    expect(await main(['inspect', session], io)).toBe(0);
    const page = path.join(dir, 'tidy.inspect.html');
    expect(io.lines()).toEqual([`wrote ${page}`]);

    const { page: view, errors, requests } = await openOffline(page);
    await expect.poll(() => view.locator('#invariants').textContent()).toBe('invariants hold');
    // The timeline, in order: the turn with its end reason, each step's request, its calls with their status.
    const labels = await view.locator('#tl-rows .row .label').allInnerTexts();
    expect(labels.map((label) => label.replace(/\s+/g, ' ').trim())).toEqual([
      'Turn 1 completed 4,250 in · 180 out',
      'MODEL step 1 · tool-calls',
      'Read read-1 ok',
      'Read read-2 ok',
      'MODEL step 2 · tool-calls',
      'Bash bash-1 denied',
      'Bash bash-2 ok',
      'MODEL step 3 · stop',
    ]);
    // Parallel calls are overlapping bars.
    const [first, second] = await Promise.all(
      ['read-1', 'read-2'].map((id) =>
        view.locator('#tl-rows .row.call', { hasText: id }).locator('.bar').boundingBox(),
      ),
    );
    expect(first!.x).toBeLessThan(second!.x + second!.width);
    expect(second!.x).toBeLessThan(first!.x + first!.width);

    // The rewritten read whose hook crashed.
    await view.locator('#tl-rows .row.call', { hasText: 'read-1' }).click();
    const details = view.locator('#details-body');
    await expect
      .poll(() => details.locator('.phase-name').allInnerTexts())
      .toEqual(['prepare', 'pre-execute', 'guards', 'body', 'post-execute']);
    const prepare = details.locator('.phase').first();
    expect(await prepare.innerText()).toContain(
      'rewritten by path-normalizer: paths are relative to the project',
    );
    expect(await prepare.locator('.who').innerText()).toBe('decided by path-normalizer');
    const hook = details.locator('table.hooks tbody tr').first();
    expect((await hook.innerText()).replace(/\s+/g, ' ')).toMatch(
      // The hook's own duration: milliseconds, or seconds on a loaded machine.
      /^claude-code:PreToolUse:1:0 PreToolUse error 1 (\d+ ms|\d+(\.\d+)? s)$/,
    );
    expect(await details.locator('tr.hook-output').first().innerText()).toContain(
      "KeyError: 'no_such_field'",
    );
    // The chart shows the states the call went through.
    expect(await view.locator('.chart[data-chart="toolCall"]').isVisible()).toBe(true);
    const lit = await view.locator('.chart[data-chart="toolCall"] g.hl > title').allTextContents();
    expect(lit).toEqual(
      expect.arrayContaining([
        'cluster_toolCall.preparing',
        'toolCall.sealing',
        'cluster_toolCall.dispatching',
      ]),
    );
    expect(lit).not.toContain('toolCall.awaitingApproval');

    // The hook's denial.
    await view.locator('#tl-rows .row.call', { hasText: 'bash-1' }).click();
    await expect
      .poll(() => details.locator('.phase').nth(1).innerText())
      .toMatch(/pre-execute\s+denied\s+decided by claude-code:PreToolUse:0:0/);
    expect(await details.innerText()).toContain('Refusing to run a recursive delete: rm -rf build');

    // The approval: asked by a listener, answered by the channel.
    await view.locator('#tl-rows .row.call', { hasText: 'bash-2' }).click();
    await expect
      .poll(() => details.locator('.phase-name').allInnerTexts())
      .toEqual(['prepare', 'pre-execute', 'approval', 'guards', 'body', 'post-execute']);
    const phases = (await details.locator('.phase-head').allInnerTexts()).map((text) =>
      text.replace(/\s+/g, ' '),
    );
    expect(phases[1]).toBe('pre-execute asked for approval decided by publish-gate');
    expect(phases[2]).toBe('approval allowed once decided by approval channel');
    await expect
      .poll(() => view.locator('.chart[data-chart="toolCall"] g.hl > title').allTextContents())
      .toContain('toolCall.awaitingApproval');

    // The turn: end reason and usage per step.
    await view.locator('#tl-rows .row.turn').click();
    expect(await details.locator('table.usage').innerText()).toMatch(/turn\s+4,250\s+180/);

    // The event list filters.
    await view.locator('#filter').fill('bash-2');
    await expect
      .poll(() => view.locator('#ev-rows .erow .type').allInnerTexts())
      .toEqual(['hook/invoked', 'hook/result', 'tool/call', 'tool/result']);

    // The picture a person sees: the rewritten call whose hook crashed, selected.
    await view.locator('#filter').fill('');
    await view.locator('#tl-rows .row.call', { hasText: 'read-1' }).click();
    await view.screenshot({ path: path.join(artifacts, 'inspector.png'), fullPage: true });
    expect(errors).toEqual([]);
    expect(requests).toEqual([]);
    await view.context().close();
  }, 120_000);

  it('O02 a session written before decidedBy existed still renders, its hook denial found from the hook log', async () => {
    const out = path.join(dir, 'old.html');
    const io = captureIO();
    const fixture = path.join(import.meta.dirname, 'fixtures/pre-observe.jsonl');
    expect(await main(['inspect', fixture, '--out', out], io)).toBe(0);
    const { page, errors } = await openOffline(out);
    await page.locator('#tl-rows .row.call', { hasText: 'c2' }).click();
    await expect
      .poll(() => page.locator('#details-body .phase').nth(1).innerText())
      .toMatch(/denied\s+decided by claude-code:PreToolUse:0:0/);
    expect(errors).toEqual([]);
    await page.context().close();
  }, 60_000);

  it('O03 a 100,000-event session opens and scrolls without a long task over 1 s', async () => {
    const file = path.join(dir, 'big.jsonl');
    const { text, events } = bigSession(100_000);
    await writeFile(file, text);
    const all = `${events.toLocaleString('en-US')} of ${events.toLocaleString('en-US')}`;
    const io = captureIO();
    expect(await main(['inspect', file], io)).toBe(0);
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, offline: true });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(String(error)));
    // Each task's main-thread CPU time comes from Chrome's own trace (`tdur` of its RunTask), not wall time:
    // with the other core busy a task's wall time stretches, its CPU time does not.
    await browser.startTracing(page, { categories: ['toplevel', 'disabled-by-default-devtools.timeline'] });
    await page.goto(`file://${path.join(dir, 'big.inspect.html')}`);
    await expect.poll(() => page.locator('#ev-count').textContent()).toBe(all);
    for (const list of ['#tl', '#ev']) {
      for (const fraction of [0.25, 0.5, 0.75, 1]) {
        await page.evaluate(
          `(() => { const box = document.querySelector('${list}'); box.scrollTop = box.scrollHeight * ${fraction}; })()`,
        );
        await page.waitForTimeout(50);
      }
    }
    // Rows far down are really rendered (a list that drew nothing would pass the timing).
    expect(await page.locator('#ev-rows .erow').last().locator('.seq').innerText()).toBe(String(events - 1));
    await page.locator('#filter').fill('turn/end');
    await expect.poll(() => page.locator('#ev-count').textContent()).not.toBe(all);
    const trace = JSON.parse((await browser.stopTracing()).toString('utf8')) as {
      traceEvents: { name: string; ph: string; tdur?: number }[];
    };
    const taskCpuMs = trace.traceEvents
      .filter((event) => event.name === 'RunTask' && event.ph === 'X' && event.tdur !== undefined)
      .map((event) => event.tdur! / 1000);
    // The trace really saw the page's work (parsing 100,000 events is a task of well over 50 ms).
    expect(Math.max(0, ...taskCpuMs)).toBeGreaterThan(50);
    expect(Math.max(0, ...taskCpuMs)).toBeLessThan(1000);
    expect(errors).toEqual([]);
    await context.close();
  }, 180_000);
});

/** A well-formed session of at least `count` events: turns of a step with a parallel pair of calls. */
function bigSession(count: number): { text: string; events: number } {
  const lines = [
    JSON.stringify({ seamchart: 1, sessionId: 'big', created: '2026-01-01T00:00:00.000Z', cwd: '/' }),
  ];
  let seq = 0;
  let clock = Date.parse('2026-01-01T00:00:00.000Z');
  const push = (type: string, data: unknown): void => {
    clock += 7;
    lines.push(JSON.stringify({ seq: seq++, type, data, time: new Date(clock).toISOString() }));
  };
  for (let turn = 1; seq < count; turn++) {
    push('turn/start', { turn, trigger: { kind: 'message', source: { kind: 'user' } } });
    push('user/message', { content: [{ type: 'text', text: `prompt ${turn}` }], source: { kind: 'user' } });
    push('step/start', { turn, step: 1 });
    const calls = ['a', 'b'].map((id) => ({
      type: 'tool-call',
      id,
      name: 'Read',
      arguments: '{"path":"x"}',
    }));
    push('assistant/message', { turn, step: 1, content: calls, finish: 'tool-calls' });
    for (const block of calls)
      push('tool/call', { turn, step: 1, callId: block.id, name: 'Read', arguments: block.arguments });
    for (const block of calls)
      push('tool/result', {
        turn,
        step: 1,
        callId: block.id,
        content: [{ type: 'text', text: 'x' }],
        isError: false,
      });
    push('step/end', { turn, step: 1 });
    push('step/start', { turn, step: 2 });
    push('assistant/message', { turn, step: 2, content: [{ type: 'text', text: 'ok' }], finish: 'stop' });
    push('step/end', { turn, step: 2 });
    push('turn/end', { turn, reason: { kind: 'completed' } });
  }
  return { text: `${lines.join('\n')}\n`, events: seq };
}

describe('seamchart inspect on the command line', () => {
  it('O02 --serve follows a session while its store writes it and holds its lock (server-sent events), never taking the lock', async () => {
    const file = path.join(dir, 'live.jsonl');
    const store = await createJsonlStore(file);
    const agent = createAgent({
      seams: createSeams(),
      tools: createToolRegistry(),
      model: scriptedModel([{ text: 'first answer' }, { text: 'second answer' }]),
      store,
    });
    agent.followup('first');
    await agent.whenIdle();
    let stop: ((signal: 'SIGINT' | 'SIGTERM') => void) | undefined;
    const io = {
      ...captureIO(),
      onSignal(listener: (signal: 'SIGINT' | 'SIGTERM') => void) {
        stop = listener;
        return () => {};
      },
    };
    const served = main(['inspect', file, '--serve', '--out', path.join(dir, 'live.html')], io);
    await expect
      .poll(() => io.lines().at(-1) ?? '', { timeout: 20_000 })
      .toMatch(/^serving http:\/\/127\.0\.0\.1:\d+\/ /);
    const url = io.lines().at(-1)!.split(' ')[1]!;
    const context = await browser.newContext();
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(String(error)));
    await page.goto(url);
    expect(await page.locator('#live').isVisible()).toBe(true);
    await expect.poll(() => page.locator('#tl-rows .row.turn').count()).toBe(1);
    agent.followup('second');
    await agent.whenIdle();
    await expect.poll(() => page.locator('#tl-rows .row.turn').count(), { timeout: 20_000 }).toBe(2);
    expect(checkInvariants(agent.log.events)).toEqual([]);
    await agent.dispose();
    stop!('SIGINT');
    expect(await served).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);

  it('O02 bad input exits 2 with one line: a missing session, a file and --database-url both, a port in use', async () => {
    const missing = captureIO();
    expect(await main(['inspect', path.join(dir, 'nope.jsonl')], missing)).toBe(2);
    expect(missing.err().trim().split('\n')).toHaveLength(1);
    expect(missing.err()).toContain('nope.jsonl');

    const both = captureIO();
    const fixture = path.join(import.meta.dirname, 'fixtures/pre-observe.jsonl');
    expect(await main(['inspect', fixture, '--database-url', 'postgres://127.0.0.1/test'], both)).toBe(2);
    expect(both.err().trim().split('\n')).toEqual([expect.stringContaining('not both')]);

    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as AddressInfo).port;
    const busy = captureIO();
    const out = path.join(dir, 'busy.html');
    expect(await main(['inspect', fixture, '--out', out, '--serve', '--port', String(port)], busy)).toBe(2);
    expect(busy.err().trim().split('\n')).toEqual([expect.stringContaining(`port ${port}`)]);
    await new Promise((resolve) => blocker.close(resolve));
  });
});
