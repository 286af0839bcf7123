import type { AnyStateMachine } from 'xstate';
import { serializeConfig } from './serializeConfig.js';

/**
 * Render a machine as `createMachine({...})` code that Stately Studio imports (paste it in Import):
 * the config with named actions, guards and actors kept and inline functions dropped.
 * @param machine any XState v5 machine
 * @example
 * writeFileSync('toolCall.stately.js', toStatelyImport(toolCallMachine));
 */
export function toStatelyImport(machine: AnyStateMachine): string {
  const name = `${machine.id.replace(/[^A-Za-z0-9_$]/g, '_').replace(/^(?=\d)/, '_')}Machine`;
  const config = JSON.stringify(serializeConfig(machine), null, 2);
  return `import { createMachine } from 'xstate';\n\nconst ${name} = createMachine(${config});\n`;
}
