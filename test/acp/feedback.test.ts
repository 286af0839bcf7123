// J04: what hooks say reaches the editor — an ask's reason, a blocked prompt's reason, systemMessages.
import { describe, expect, it } from 'vitest';
import { claudeCodeHooks } from '../../bridges/index.js';
import { chunkText, useAcpFixtures } from './harness.js';

const createFixture = useAcpFixtures();

/** A command hook that prints `json` (a Claude Code hook answer) and exits 0. */
const printing = (json: unknown) => ({
  hooks: [{ type: 'command' as const, command: `cat > /dev/null; echo '${JSON.stringify(json)}'` }],
});

describe('J04 hook feedback reaches the editor', () => {
  it("J04 a PreToolUse hook's ask reason is in session/request_permission", async () => {
    const fixture = createFixture({
      scripts: [[{ toolCalls: [{ id: 'c1', name: 'echo', arguments: { text: 'hi' } }] }, { text: 'done' }]],
      permissions: ['allow_once'],
      setup: async (seams) => {
        seams.use(
          await claudeCodeHooks({
            hooks: {
              PreToolUse: [
                {
                  matcher: 'echo',
                  ...printing({
                    hookSpecificOutput: {
                      hookEventName: 'PreToolUse',
                      permissionDecision: 'ask',
                      permissionDecisionReason: 'echo repeats secrets; a human must look',
                    },
                  }),
                },
              ],
            },
          }),
        );
      },
    });
    await fixture.initialize();
    const sessionId = await fixture.newSession();
    expect(await fixture.prompt(sessionId, 'go')).toEqual({ stopReason: 'end_turn' });
    expect(fixture.record.permissions).toHaveLength(1);
    expect(fixture.record.permissions[0]?.toolCall.content).toEqual([
      { type: 'content', content: { type: 'text', text: 'echo repeats secrets; a human must look' } },
    ]);
  });

  it("J04 a blocked prompt's reason is sent as an update before the refusal", async () => {
    const fixture = createFixture({
      scripts: [[{ text: 'second prompt answered' }]],
      setup: async (seams) => {
        seams.use(
          await claudeCodeHooks({
            hooks: {
              UserPromptSubmit: [
                {
                  hooks: [
                    {
                      type: 'command',
                      command: `grep -q password && echo '{"decision":"block","reason":"prompts must not carry passwords"}' || true`,
                    },
                  ],
                },
              ],
            },
          }),
        );
      },
    });
    await fixture.initialize();
    const sessionId = await fixture.newSession();
    let updatesAtAnswer = -1;
    const answer = fixture.prompt(sessionId, 'my password is hunter2').then((response) => {
      updatesAtAnswer = fixture.updatesOf(sessionId).length;
      return response;
    });
    expect(await answer).toEqual({ stopReason: 'refusal' });
    const updates = fixture.updatesOf(sessionId).slice(0, updatesAtAnswer);
    expect(chunkText(updates, 'agent_message_chunk')).toBe(
      '\n⚑ prompt blocked: prompts must not carry passwords\n',
    );
    expect(await fixture.prompt(sessionId, 'hello')).toEqual({ stopReason: 'end_turn' });
  });

  it('J04 SessionStart and Stop systemMessages are shown as updates', async () => {
    const hooks = {
      SessionStart: [printing({ systemMessage: 'welcome back to the repo' })],
      Stop: [printing({ systemMessage: 'remember to run the tests' })],
    };
    const fixture = createFixture({
      scripts: [[{ text: 'answer' }], []],
      setup: async (seams) => {
        seams.use(await claudeCodeHooks({ hooks }));
      },
    });
    await fixture.initialize();
    const sessionId = await fixture.newSession();
    expect(await fixture.prompt(sessionId, 'hi')).toEqual({ stopReason: 'end_turn' });
    const live = chunkText(fixture.updatesOf(sessionId), 'agent_message_chunk');
    expect(live).toContain('\n⚑ SessionStart hook: welcome back to the repo\n');
    expect(live).toContain('answer');
    expect(live.indexOf('\n⚑ Stop hook: remember to run the tests\n')).toBeGreaterThan(
      live.indexOf('answer'),
    );
  });
});
