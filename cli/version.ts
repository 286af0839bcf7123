import { readFileSync } from 'node:fs';

/** The package version: `package.json` is one folder up from `cli/`, two from `dist/cli/`. */
export function packageVersion(): string {
  for (const relative of ['../package.json', '../../package.json']) {
    try {
      const json = JSON.parse(readFileSync(new URL(relative, import.meta.url), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (json.name === 'seamchart' && json.version) return json.version;
    } catch {
      // not this level
    }
  }
  return 'unknown';
}
