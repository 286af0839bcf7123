import { describe, expect, it } from 'vitest';
import { createAgentEnvironment, toolEnvironmentOf } from '../../../seams/index.js';

describe('the agent environment channel', () => {
  it('adds files through a detached addShellEnvFile, as a plugin passing it to forEach does', () => {
    const env = createAgentEnvironment();
    ['/tmp/a.sh', '/tmp/b.sh', '/tmp/a.sh'].forEach(env.addShellEnvFile);
    const { addShellEnvFile } = env;
    addShellEnvFile('/tmp/c.sh');
    expect(env.shellEnvFiles).toEqual(['/tmp/a.sh', '/tmp/b.sh', '/tmp/c.sh']);
  });

  it('serializes with its files, and so does the view tools get', () => {
    const env = createAgentEnvironment();
    const view = toolEnvironmentOf(env);
    env.addShellEnvFile('/tmp/a.sh');
    expect(JSON.parse(JSON.stringify(env))).toEqual({ shellEnvFiles: ['/tmp/a.sh'] });
    expect(JSON.parse(JSON.stringify({ env: view }))).toEqual({ env: { shellEnvFiles: ['/tmp/a.sh'] } });
    expect(Object.isFrozen(env) && Object.isFrozen(view)).toBe(true);
  });
});
