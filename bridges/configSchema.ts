import { z } from 'zod';
import { describeReceived } from '../kernel/index.js';
import type { Dialect } from './types.js';

const seconds = z.number().positive({ error: 'must be a positive number of seconds' });

function handlerSchema(dialect: Dialect) {
  return z
    .looseObject({
      // Codex tags handlers by `type` (required); Claude Code treats a missing type as `command`.
      type: dialect === 'codex' ? z.string() : z.string().optional(),
      command: z.string().optional(),
      timeout: seconds.optional(),
      ...(dialect === 'codex'
        ? { timeoutSec: seconds.optional() }
        : {
            args: z.array(z.string()).optional(),
            if: z.string().optional(),
            onFailure: z.enum(['continue', 'block']).optional(),
          }),
      async: z.boolean().optional(),
    })
    .superRefine((handler, ctx) => {
      if ((handler.type ?? 'command') === 'command' && handler.command === undefined) {
        ctx.addIssue({ code: 'custom', path: ['command'], message: 'must be a string' });
      }
    });
}

/** The zod schema of one hooks file of a dialect: `{ hooks: { <Event>: [{ matcher?, hooks: [handler] }] } }`. */
export function hooksFileSchema(dialect: Dialect) {
  const group = z.looseObject({ matcher: z.string().optional(), hooks: z.array(handlerSchema(dialect)) });
  return z.looseObject({ hooks: z.record(z.string(), z.array(group)).optional() });
}

export type HooksFile = z.output<ReturnType<typeof hooksFileSchema>>;
export type HandlerEntry = NonNullable<HooksFile['hooks']>[string][number]['hooks'][number];

/** `hooks.PreToolUse[0].hooks[1].command` from a zod path. */
export function formatJsonPath(path: readonly PropertyKey[]): string {
  let text = '';
  for (const key of path) {
    if (typeof key === 'number') text += `[${key}]`;
    else if (typeof key === 'string' && /^[A-Za-z_$][\w$]*$/.test(key)) text += text === '' ? key : `.${key}`;
    else text += `[${JSON.stringify(String(key))}]`;
  }
  return text;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let value = root;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

const ARTICLE: Record<string, string> = { object: 'an object', array: 'an array', undefined: 'nothing' };

/** The first issue of a failed parse as `{ path, detail }`, with expected vs received. */
export function describeFirstIssue(error: z.ZodError, raw: unknown): { path: string; detail: string } {
  const issue = error.issues[0];
  if (issue === undefined) return { path: '', detail: 'is invalid' };
  const received = describeReceived(valueAt(raw, issue.path));
  const detail =
    issue.code === 'invalid_type'
      ? `must be ${ARTICLE[issue.expected] ?? `a ${issue.expected}`}, got ${received}`
      : `${issue.message}, got ${received}`;
  return { path: formatJsonPath(issue.path), detail };
}
