#!/bin/sh
# PreToolUse: refuse the write (this hook only runs for .env files, thanks to its `if`).
file=$(jq -r '.tool_input.file_path')
echo "$(date -u +%FT%TZ) refused $file" >> "$CLAUDE_PLUGIN_DATA/refusals.log"
echo "$file holds secrets: secrets-guard refuses to write it" >&2
exit 2
