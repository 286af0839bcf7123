// The agent of the example: a `deploy` tool that needs a person's approval. Both processes build it the same way.
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import {
  createAgent,
  createSeams,
  createToolRegistry,
  defineTool,
  type PendingApproval,
  type ScriptStep,
  type SessionStore,
  scriptedModel,
} from 'seamchart';
import { z } from 'zod';

/**
 * An agent on `store` that defers every approval. The model is scripted so the example runs offline; a real
 * server passes `openAICompatible({ baseURL, apiKey, model })` instead.
 */
export function openAgent(
  store: SessionStore,
  folder: string,
  script: ScriptStep[],
  tell?: (request: PendingApproval) => void,
) {
  const seams = createSeams();
  // Tell a person when a question is recorded (a chat message, an e-mail to the reviewer).
  if (tell) seams.on('agent/approval-requested', ({ request }) => tell(request));
  seams.on(
    'tools/pre-execute',
    (exec) =>
      exec.name === 'deploy' ? { kind: 'ask', reason: 'deploys need a second pair of eyes' } : undefined,
    { name: 'change-control' },
  );
  const tools = createToolRegistry();
  tools.register(
    defineTool({
      name: 'deploy',
      description: 'Deploy a service to production',
      parameters: z.object({ service: z.string() }),
      execute: ({ service }) => {
        appendFileSync(path.join(folder, 'deployments.log'), `${service}\n`);
        return `${service} is live`;
      },
    }),
  );
  return createAgent({ seams, tools, model: scriptedModel(script), store, approval: 'defer' });
}
