import { z } from 'zod';
import { describeReceived, JsonValueSchema } from '../kernel/index.js';

/** `auto`, `none`, `required`, or one named tool the model must call. */
export const ToolChoiceSchema = z.union([
  z.enum(['auto', 'none', 'required']),
  z.strictObject({ name: z.string().min(1) }),
]);
export type ToolChoice = z.infer<typeof ToolChoiceSchema>;

/** Sampling and tool-use settings of a model request; unknown keys are refused. */
export const ModelSettingsSchema = z.strictObject({
  temperature: z.number().min(0).max(2).optional(),
  topP: z.number().min(0).max(1).optional(),
  maxOutputTokens: z.number().int().positive().optional(),
  stop: z.union([z.string(), z.array(z.string())]).optional(),
  seed: z.number().int().optional(),
  toolChoice: ToolChoiceSchema.optional(),
  parallelToolCalls: z.boolean().optional(),
  /** A forcing `toolChoice` applies until the turn's first answer, then `auto` (default `true`). */
  resetToolChoice: z.boolean().optional(),
  /** Provider options merged into the request body (named settings win over them). */
  extra: z.record(z.string(), JsonValueSchema).optional(),
});
export type ModelSettings = z.infer<typeof ModelSettingsSchema>;

export const modelSettingNames: readonly string[] = Object.keys(ModelSettingsSchema.shape);

/**
 * Validates raw settings; a bad or unknown key is a `TypeError` naming it.
 * @param raw the settings as given
 * @param where who asks, e.g. `createAgent() option \`modelSettings\``
 */
export function parseModelSettings(raw: unknown, where: string): ModelSettings {
  if (raw === undefined) return {};
  const result = ModelSettingsSchema.safeParse(raw);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  if (issue.code === 'unrecognized_keys') {
    throw new TypeError(
      `Expected the ${where} to have only known settings (${modelSettingNames.join(', ')}), got unknown ${issue.keys
        .map((key) => `\`${key}\``)
        .join(', ')}`,
    );
  }
  if (issue.path.length === 0) {
    throw new TypeError(`Expected the ${where} to be an object of settings, got ${describeReceived(raw)}`);
  }
  const key = String(issue.path[0]);
  throw new TypeError(
    `Expected the ${where} setting \`${key}\` to be valid (${issue.message}), got ${describeReceived(
      (raw as Record<string, unknown>)[key],
    )}`,
    { cause: result.error },
  );
}

/** Later settings override earlier ones key by key; `extra` objects are merged the same way. */
export function mergeModelSettings(...layers: readonly (ModelSettings | undefined)[]): ModelSettings {
  const merged: Record<string, unknown> = {};
  let extra: Record<string, unknown> | undefined;
  for (const layer of layers) {
    if (layer === undefined) continue;
    for (const [key, value] of Object.entries(layer)) {
      if (value === undefined) continue;
      if (key === 'extra') extra = { ...extra, ...(value as Record<string, unknown>) };
      else merged[key] = value;
    }
  }
  if (extra !== undefined) merged.extra = extra;
  return merged as ModelSettings;
}

/** Whether a tool choice forces a call (`required` or one named tool). */
export function isForcingToolChoice(choice: ToolChoice | undefined): boolean {
  return choice === 'required' || typeof choice === 'object';
}

/**
 * The settings of one request: a forcing `toolChoice` becomes `auto` once the turn has an answer,
 * unless `resetToolChoice: false` (otherwise every step would call a tool until the step cap).
 */
export function settingsForRequest(settings: ModelSettings, turnHasAnswer: boolean): ModelSettings {
  if (!turnHasAnswer || settings.resetToolChoice === false || !isForcingToolChoice(settings.toolChoice)) {
    return settings;
  }
  return { ...settings, toolChoice: 'auto' };
}
