#!/bin/sh
# PostToolUse (Write|Edit): JSON additionalContext becomes a context/message after the batch.
cat > /dev/null
printf '%s\n' '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"hook: say which file changed when you finish"}}'
