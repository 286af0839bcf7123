/** Why a hooks config could not be loaded. */
export type HookConfigErrorCode = 'HOOK_CONFIG_UNREADABLE' | 'HOOK_CONFIG_INVALID';

/**
 * A hooks config that cannot be read or is malformed. The message names the file and, for a
 * malformed file, the JSON path (`hooks.PreToolUse[0].hooks[1].command must be a string`).
 */
export class HookConfigError extends TypeError {
  readonly code: HookConfigErrorCode;
  /** The config file, or `'<inline>'` for a config object. */
  readonly file: string;
  /** The JSON path of the offending value (`''` for the whole file). */
  readonly path: string;

  constructor(code: HookConfigErrorCode, file: string, path: string, detail: string, cause?: unknown) {
    super(`${file}: ${path === '' ? detail : `${path} ${detail}`}`, cause === undefined ? {} : { cause });
    this.name = 'HookConfigError';
    this.code = code;
    this.file = file;
    this.path = path;
  }
}
