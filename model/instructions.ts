import { describeReceived, describeThrown } from '../kernel/index.js';
import type { AgentHandle } from '../seams/index.js';
import { ModelErrorCode, ModelRequestError } from './types.js';

/** What an instructions function is told about the request it writes the system prompt for. */
export interface InstructionsContext {
  readonly agent: AgentHandle;
  readonly turn: number;
  readonly step: number;
}

/** The system prompt: a string, or a function evaluated before every model request. */
export type Instructions = string | ((ctx: InstructionsContext) => string | Promise<string>);

/**
 * The instructions of one request; a throw, a rejection or a non-string result is a model-request
 * failure with code `INSTRUCTIONS_FAILED`.
 */
export async function evaluateInstructions(
  instructions: Instructions | undefined,
  ctx: InstructionsContext,
): Promise<string | undefined> {
  if (typeof instructions !== 'function') return instructions;
  let text: unknown;
  try {
    text = await instructions(ctx);
  } catch (error) {
    const message = describeThrown(error);
    throw new ModelRequestError({ message, code: ModelErrorCode.instructionsFailed }, { cause: error });
  }
  if (typeof text !== 'string') {
    throw new ModelRequestError({
      message: `Expected the instructions function to return a string, got ${describeReceived(text)}`,
      code: ModelErrorCode.instructionsFailed,
    });
  }
  return text;
}
