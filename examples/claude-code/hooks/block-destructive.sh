#!/bin/sh
# PreToolUse (Bash): exit 2 blocks the call; stderr is the reason the model sees.
input=$(cat)
case "$input" in
  *'rm -rf'*) echo "blocked by hook: rm -rf is not allowed in this project" >&2; exit 2 ;;
esac
exit 0
