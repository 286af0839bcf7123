import { describe, expect, it } from 'vitest';
import * as seamchart from '../../index.js';
import * as testing from '../../testing.js';

// The names surface.md fixes for the public entries: a missing export is a broken promise to users.
const publicNames = [
  'createSeams',
  'createToolRegistry',
  'defineTool',
  'createAgent',
  'defineLogEvent',
  'memoryStore',
  'createJsonlStore',
  'openJsonlStore',
  'readJsonlLog',
  'checkInvariants',
  'checkLedger',
  'scriptedModel',
  'openAICompatible',
  'claudeCodeHooks',
  'codexHooks',
  'createAgentLogic',
  'createTurnLogic',
  'createToolBatchLogic',
  'createToolCallLogic',
  'toMermaid',
  'toDot',
  'toSvg',
  'toStatelyImport',
  'serveAcp',
  'connectMcpServers',
] as const;
const testingNames = [
  'createTestAgent',
  'recordNotifications',
  'checkInvariants',
  'checkLedger',
  'shortestSeamPaths',
  'runPath',
] as const;

describe('public entries', () => {
  it('seamchart exports every function surface.md names', () => {
    const missing = publicNames.filter(
      (name) => typeof (seamchart as Record<string, unknown>)[name] !== 'function',
    );
    expect(missing).toEqual([]);
  });

  it('seamchart exports the four machines with their graph events, and the built-in plugins', () => {
    for (const machine of [
      seamchart.agentMachine,
      seamchart.turnMachine,
      seamchart.toolBatchMachine,
      seamchart.toolCallMachine,
    ]) {
      expect(machine.config.id).toBeTypeOf('string');
    }
    for (const events of [
      seamchart.agentGraphEvents,
      seamchart.turnGraphEvents,
      seamchart.toolBatchGraphEvents,
      seamchart.toolCallGraphEvents,
    ]) {
      expect(events.length).toBeGreaterThan(0);
    }
    expect(Object.keys(seamchart.plugins).sort()).toEqual(['metrics', 'requestRetry', 'retry', 'timeout']);
  });

  it('seamchart/testing exports the kit', () => {
    const missing = testingNames.filter(
      (name) => typeof (testing as Record<string, unknown>)[name] !== 'function',
    );
    expect(missing).toEqual([]);
  });
});
