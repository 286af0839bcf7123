// J02: what an MCP tool answers beyond text reaches the model and the editor; a changed tool list is re-read.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkInvariants, readJsonlLog } from '../../session/index.js';
import { useModelServers } from '../unit/agent/modelServer.js';
import { startAcpChild } from './acpChild.js';

const shotsServer = path.join(import.meta.dirname, 'fixtures', 'shotsServer.mjs');
// The 1×1 PNG the fixture server answers.
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
const serveModel = useModelServers();
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'seamchart-mcp-content-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

interface ChatBody {
  messages: { role: string; content: unknown; tool_call_id?: string }[];
  tools?: { function: { name: string } }[];
}

const SNAPSHOT_BLOCKS = [
  { type: 'content', content: { type: 'text', text: 'the screen is red' } },
  { type: 'content', content: { type: 'image', data: PNG, mimeType: 'image/png' } },
  {
    type: 'content',
    content: {
      type: 'resource_link',
      uri: 'file:///srv/reports/today.txt',
      name: 'today.txt',
      title: "Today's report",
      mimeType: 'text/plain',
    },
  },
];

describe('J02 MCP results beyond text, and tool lists that change', () => {
  it('J02 an image and a resource_link reach the model (image part) and the editor (image and resource_link blocks, also on load); tools/list_changed refreshes the tools before the next step', async () => {
    const server = await serveModel([
      { toolCalls: [{ id: 'c1', name: 'mcp__shots__snapshot', arguments: '{}' }] },
      { toolCalls: [{ id: 'c2', name: 'mcp__shots__unlock', arguments: '{}' }] },
      { toolCalls: [{ id: 'c3', name: 'mcp__shots__secret', arguments: '{"who":"ann"}' }] },
      { chunks: ['the secret is 42'] },
    ]);
    // MCP tools ask in the default mode: the editor allows each once.
    const editor = startAcpChild(['--model', 'openai', '--base-url', server.baseURL, '--sessions', dir], {
      permissions: ['allow_once', 'allow_once', 'allow_once'],
    });
    await editor.initialize();
    const mcpServers: acp.McpServer[] = [
      { name: 'shots', command: process.execPath, args: [shotsServer], env: [] },
    ];
    const { sessionId } = await editor.agent.request(acp.methods.agent.session.new, { cwd: dir, mcpServers });
    const response = await editor.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'what is on screen?' }],
    });
    expect(response).toEqual({ stopReason: 'end_turn' });

    // The model: the tool message names what came back; the image follows as an image part.
    const bodies = server.received.map((request) => request.body as ChatBody);
    expect(bodies).toHaveLength(4);
    const second = bodies[1]!.messages;
    const at = second.findIndex((message) => message.role === 'tool' && message.tool_call_id === 'c1');
    expect(second[at]?.content).toBe(
      "the screen is red\n[image/png image: attached below]\n[resource link] Today's report (today.txt, text/plain): file:///srv/reports/today.txt",
    );
    expect(second[at + 1]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'Images returned by tool call c1:' },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
      ],
    });
    // The changed list: `secret` is offered from the step after `unlock`, and runs.
    const offered = bodies.map((body) => (body.tools ?? []).map((tool) => tool.function.name));
    expect(offered[1]).toEqual(['mcp__shots__snapshot', 'mcp__shots__unlock']);
    expect(offered[2]).toEqual(['mcp__shots__secret', 'mcp__shots__snapshot', 'mcp__shots__unlock']);
    const fourth = bodies[3]!.messages;
    expect(fourth.find((m) => m.tool_call_id === 'c3')?.content).toBe('the secret for ann is 42');

    // The editor: the call's final update carries the image and the link as ACP content blocks.
    const finalOf = (updates: readonly acp.SessionUpdate[]) =>
      updates.find(
        (u): u is Extract<acp.SessionUpdate, { sessionUpdate: 'tool_call_update' }> =>
          u.sessionUpdate === 'tool_call_update' && u.toolCallId === '1.1.c1' && u.status === 'completed',
      );
    expect(finalOf(editor.updatesOf(sessionId))).toEqual({
      sessionUpdate: 'tool_call_update',
      toolCallId: '1.1.c1',
      status: 'completed',
      content: SNAPSHOT_BLOCKS,
    });

    // Loaded again, the replayed history shows the same blocks.
    await editor.agent.request(acp.methods.agent.session.close, { sessionId });
    const before = editor.updatesOf(sessionId).length;
    await editor.agent.request(acp.methods.agent.session.load, { sessionId, cwd: dir, mcpServers: [] });
    expect(finalOf(editor.updatesOf(sessionId).slice(before))?.content).toEqual(SNAPSHOT_BLOCKS);

    expect(await editor.endStdin()).toBe(0);
    const log = await readJsonlLog(path.join(dir, `${sessionId}.jsonl`));
    expect(log.repairs).toEqual([]);
    expect(checkInvariants(log.events)).toEqual([]);
  }, 60_000);
});
