import { readFile } from 'node:fs/promises';
import { HookConfigError } from './errors.js';

/**
 * Reads and parses one JSON config file; a failure is a `HookConfigError` naming the file.
 * `missing: 'undefined'` makes an absent file (ENOENT) answer `undefined` instead.
 */
export async function readConfigFile(file: string): Promise<unknown>;
export async function readConfigFile(file: string, missing: 'undefined'): Promise<unknown | undefined>;
export async function readConfigFile(file: string, missing?: 'undefined'): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if (missing === 'undefined' && (error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new HookConfigError(
      'HOOK_CONFIG_UNREADABLE',
      file,
      '',
      `cannot be read: ${(error as Error).message}`,
      error,
    );
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new HookConfigError(
      'HOOK_CONFIG_INVALID',
      file,
      '',
      `is not valid JSON: ${(error as Error).message}`,
      error,
    );
  }
}
