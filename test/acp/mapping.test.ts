import { describe, expect, it } from 'vitest';
import { toStopReason } from '../../bridges/acp/stopReason.js';
import { describeToolCall } from '../../bridges/acp/toolCalls.js';
import { createDemoTools } from '../../tools/index.js';
import { mcpToolName, parseMcpConfig } from '../../tools/mcp/index.js';

describe('ACP mapping tables', () => {
  it('maps every turn end reason to its stop reason; a rejected turn follows the option', () => {
    const kinds = [
      'completed',
      'max-tokens',
      'max-steps',
      'rejected',
      'aborted',
      'disposed',
      'interrupted',
      'error',
    ];
    expect(kinds.map((kind) => toStopReason({ kind }, 'refusal'))).toEqual([
      'end_turn',
      'max_tokens',
      'max_turn_requests',
      'refusal',
      'cancelled',
      'cancelled',
      'cancelled',
      'error',
    ]);
    expect(toStopReason({ kind: 'rejected' }, 'cancelled')).toBe('cancelled');
  });

  it('the demo tools carry ACP kinds an editor can show', () => {
    const kinds = Object.fromEntries(createDemoTools({ root: '/tmp' }).map((tool) => [tool.name, tool.kind]));
    expect(kinds).toEqual({
      Bash: 'execute',
      Read: 'read',
      Write: 'edit',
      Edit: 'edit',
      Glob: 'search',
      Grep: 'search',
    });
  });

  it('titles a tool call with its first string argument, cut at one line', () => {
    expect(describeToolCall('Bash', { command: 'ls -la\necho done' })).toBe('Bash: ls -la');
    expect(describeToolCall('Read', { limit: 3 })).toBe('Read');
    expect(describeToolCall('Bash', { command: 'x'.repeat(80) })).toBe(`Bash: ${'x'.repeat(60)}…`);
  });
});

describe('MCP names and config', () => {
  it("names tools as Claude Code does: characters a tool name cannot hold become '_'", () => {
    expect(mcpToolName('notes', 'lookup')).toBe('mcp__notes__lookup');
    expect(mcpToolName('my server.v2', 'get/item')).toBe('mcp__my_server_v2__get_item');
  });

  it('reads the stdio servers of a .mcp.json and names what is wrong with a bad entry', () => {
    expect(
      parseMcpConfig({
        mcpServers: {
          a: { command: 'node', args: ['a.js'], env: { K: 'v' } },
          b: { type: 'stdio', command: 'b' },
        },
      }),
    ).toEqual([
      { name: 'a', command: 'node', args: ['a.js'], env: { K: 'v' } },
      { name: 'b', command: 'b' },
    ]);
    const messages = [
      { servers: {} },
      { mcpServers: { a: { args: [] } } },
      { mcpServers: { a: { type: 'sse', url: 'x' } } },
    ].map((raw) => {
      try {
        parseMcpConfig(raw, '.mcp.json');
        return 'no error';
      } catch (error) {
        return (error as Error).message;
      }
    });
    expect(messages).toMatchInlineSnapshot(`
      [
        ".mcp.json: expected an object { "mcpServers": { "<name>": { "command": … } } }",
        ".mcp.json: MCP server "a": command: expected string, received undefined",
        ".mcp.json: MCP server "a" uses transport "sse"; only stdio servers are supported",
      ]
    `);
  });
});
