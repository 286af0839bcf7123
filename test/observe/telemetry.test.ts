import { readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import * as api from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { claudeCodeHooks } from '../../bridges/index.js';
import { main } from '../../cli/main.js';
import { createAgent, createToolRegistry } from '../../machines/index.js';
import { scriptedModel } from '../../model/index.js';
import { createSeams } from '../../seams/index.js';
import { checkInvariants } from '../../session/index.js';
import { openTelemetry } from '../../telemetry/index.js';
import { createDemoTools, defineTool } from '../../tools/index.js';
import { fixture, hooksConfig, useScratchSessions } from '../bridges/harness.js';
import { captureIO } from '../e2e/support/captureIO.js';

const session = useScratchSessions();
const here = import.meta.dirname;

function tracing() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { exporter, tracer: provider.getTracer('seamchart-test') };
}

const parentOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId;
const idOf = (span: ReadableSpan): string => span.spanContext().spanId;

describe('OpenTelemetry spans', () => {
  it('O04 session → turn → step → model request and tool calls; parallel calls are siblings; a denial and a cancel have error status; hook spans are children of their call', async () => {
    const cwd = await session();
    const { exporter, tracer } = tracing();
    const seams = createSeams();
    seams.use(await openTelemetry({ api, tracer, model: 'scripted' }));
    seams.use(
      await claudeCodeHooks(
        hooksConfig({
          PreToolUse: [
            { matcher: 'Bash', commands: [fixture('bash-validator.py')] },
            { matcher: 'Read', commands: [`sh '${path.join(here, 'fixtures/record-traceparent.sh')}'`] },
          ],
        }),
      ),
    );
    const tools = createToolRegistry();
    for (const tool of createDemoTools({ root: cwd })) if (tool.name === 'Bash') tools.register(tool);
    tools.register(
      defineTool({
        name: 'Read',
        description: 'reads (test double)',
        parameters: z.object({ path: z.string() }),
        concurrency: 'parallel',
        execute: ({ path: file }) => `contents of ${file}`,
      }),
    );
    let started!: () => void;
    const sleeping = new Promise<void>((resolve) => {
      started = resolve;
    });
    tools.register(
      defineTool({
        name: 'Sleep',
        description: 'waits until cancelled',
        parameters: z.object({}),
        execute: (_args, exec) =>
          new Promise((_resolve, reject) => {
            started();
            exec.signal.addEventListener('abort', () => reject(new Error('cancelled')), { once: true });
          }),
      }),
    );
    const call = (id: string, name: string, args: Record<string, string>) => ({ id, name, arguments: args });
    const agent = createAgent({
      seams,
      tools,
      cwd,
      model: scriptedModel([
        {
          toolCalls: [
            call('r1', 'Read', { path: 'a' }),
            call('r2', 'Read', { path: 'b' }),
            call('b1', 'Bash', { command: 'rm -rf /tmp/x' }),
            call('b2', 'Bash', { command: 'echo "$TRACEPARENT"' }),
          ],
          usage: { inputTokens: 100, outputTokens: 20 },
        },
        { text: 'done', usage: { inputTokens: 150, outputTokens: 5 } },
        { toolCalls: [call('s1', 'Sleep', {})] },
      ]),
    });
    agent.followup('look around');
    await agent.whenIdle();
    agent.followup('now wait');
    await sleeping;
    agent.cancel();
    await agent.whenIdle();
    expect(checkInvariants(agent.log.events)).toEqual([]);
    await agent.dispose();

    const spans = exporter.getFinishedSpans();
    const named = (name: string) => spans.filter((span) => span.name === name);
    const [root] = named('session');
    expect(root).toBeDefined();
    expect(parentOf(root!)).toBeUndefined();
    const turns = named('turn');
    expect(turns.map(parentOf)).toEqual([idOf(root!), idOf(root!)]);
    const steps = named('step');
    expect(new Set(steps.map(parentOf))).toEqual(new Set(turns.map(idOf)));
    const requests = named('chat scripted');
    expect(requests.length).toBe(steps.length);
    expect(requests.every((request) => steps.some((step) => idOf(step) === parentOf(request)))).toBe(true);
    expect(requests[0]!.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'scripted',
      'gen_ai.usage.input_tokens': 100,
      'gen_ai.usage.output_tokens': 20,
    });
    const callSpan = (id: string) => spans.find((span) => span.attributes['gen_ai.tool.call.id'] === id)!;
    const [r1, r2, b1, b2, s1] = ['r1', 'r2', 'b1', 'b2', 's1'].map(callSpan);
    expect(r1!.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'Read',
    });
    // Parallel calls are siblings under their step, overlapping in time.
    expect(parentOf(r1!)).toBe(parentOf(r2!));
    expect(steps.map(idOf)).toContain(parentOf(r1!));
    expect(r1!.status.code).toBe(api.SpanStatusCode.UNSET);
    expect(b1!.status).toMatchObject({
      code: api.SpanStatusCode.ERROR,
      message: expect.stringMatching(/^DENIED/),
    });
    expect(s1!.status).toMatchObject({
      code: api.SpanStatusCode.ERROR,
      message: expect.stringMatching(/^ABORTED/),
    });
    expect(turns[1]!.status).toMatchObject({ code: api.SpanStatusCode.ERROR, message: 'ABORTED' });
    // Hook processes are children of their call's span, with their exit code.
    const hooks = named('hook PreToolUse');
    const denyHook = hooks.find((span) => parentOf(span) === idOf(b1!))!;
    expect(denyHook.attributes).toMatchObject({ 'process.exit.code': 2, 'seamchart.hook.timed_out': false });
    expect(hooks.filter((span) => parentOf(span) === idOf(r1!))).toHaveLength(1);
    // A decision a listener made is its own span, naming the decider.
    const decided = spans.filter((span) => span.attributes['seam.name'] === 'tools/pre-execute');
    expect(decided.map((span) => [span.attributes.decided_by, parentOf(span)])).toContainEqual([
      'claude-code-hooks.PreToolUse',
      idOf(b1!),
    ]);

    // O05: the Bash process of b2 saw b2's span as its parent.
    const traceparent = (span: ReadableSpan) => `00-${span.spanContext().traceId}-${idOf(span)}-01`;
    const b2Result = agent.log.events.find(
      (event) => event.type === 'tool/result' && (event.data as { callId: string }).callId === 'b2',
    );
    expect(JSON.stringify(b2Result?.data)).toContain(traceparent(b2!));
    // And each Read's hook saw its own call's span.
    const recorded = (await readFile(path.join(cwd, 'traceparents.txt'), 'utf8')).trim().split('\n');
    expect(recorded.sort()).toEqual([traceparent(r1!), traceparent(r2!)].sort());
  }, 60_000);

  it('O04 with no SDK registered the plugin listens to nothing (the no-op tracer records nothing)', async () => {
    const seams = createSeams();
    const before = seams.snapshot('a').has('session/event');
    seams.use(await openTelemetry({ api }));
    expect([
      before,
      seams.snapshot('a').has('session/event'),
      seams.snapshot('a').has('seam/decided'),
    ]).toEqual([false, false, false]);
  });
});

describe('the CLI exports traces', () => {
  it('O05 with OTEL_EXPORTER_OTLP_ENDPOINT set, seamchart run exports over OTLP/HTTP to a local receiver; a shell hook and Bash see their call span as TRACEPARENT', async () => {
    const cwd = await session();
    const received: { path: string; body: OtlpBody }[] = [];
    const receiver = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => {
        body += chunk.toString('utf8');
      });
      request.on('end', () => {
        received.push({ path: request.url ?? '', body: JSON.parse(body) as OtlpBody });
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const port = (receiver.address() as AddressInfo).port;
    const model = path.join(cwd, 'model.json');
    await writeFile(
      model,
      JSON.stringify([
        { toolCalls: [{ id: 'c1', name: 'Bash', arguments: { command: 'echo "bash saw $TRACEPARENT"' } }] },
        { text: 'done' },
      ]),
    );
    const settings = path.join(cwd, 'settings.json');
    const hook = `sh '${path.join(here, 'fixtures/record-traceparent.sh')}'`;
    await writeFile(
      settings,
      JSON.stringify({
        hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: hook }] }] },
      }),
    );
    const io = {
      ...captureIO(),
      env: { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` },
    };
    const args = ['run', 'hi', '--model', `scripted:${model}`, '--tools', 'demo', '--cwd', cwd];
    expect(await main([...args, '--claude-settings', settings, '--approve', 'yes'], io)).toBe(0);
    await new Promise((resolve) => receiver.close(resolve));

    expect(received.map((request) => request.path)).toContain('/v1/traces');
    const spans = received.flatMap((request) =>
      request.body.resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans)),
    );
    expect(spans.map((span) => span.name)).toEqual(
      expect.arrayContaining(['session', 'turn', 'step', 'execute_tool Bash', 'hook PreToolUse']),
    );
    const call = spans.find((span) => span.name === 'execute_tool Bash')!;
    const traceparent = `00-${call.traceId}-${call.spanId}-01`;
    const hookSaw = (await readFile(path.join(cwd, 'traceparents.txt'), 'utf8')).trim();
    expect(hookSaw).toBe(traceparent);
    expect(io.out()).toContain(`bash saw ${traceparent}`);
    const hookSpan = spans.find((span) => span.name === 'hook PreToolUse')!;
    expect(hookSpan.parentSpanId).toBe(call.spanId);
  }, 60_000);
});

interface OtlpBody {
  resourceSpans: {
    scopeSpans: { spans: { name: string; traceId: string; spanId: string; parentSpanId?: string }[] }[];
  }[];
}
