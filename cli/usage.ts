/** A bad command line or input file: printed as one line, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export const USAGE = `usage:
  seamchart run [PROMPT...] [--prompt TEXT]... [--model scripted:<file>|openai] [--base-url URL]
                [--model-name NAME] [--api-key-env NAME] [--session FILE] [--resume]
                [--claude-settings FILE]... [--claude-plugin DIR]... [--codex-hooks FILE]...
                [--tools demo|none] [--cwd DIR] [--json] [--inspect-log FILE]
  seamchart visualize [--machine agent|turn|toolBatch|toolCall|all] [--format mermaid|dot|svg|stately] [--out DIR]
  seamchart log FILE [--check]`;
