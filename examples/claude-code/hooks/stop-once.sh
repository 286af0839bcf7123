#!/bin/sh
# Stop: the first time, exit 2 continues the turn with a reason; a marker in the session cwd lets it stop after.
cat > /dev/null
if [ -f .seamchart-stop-checked ]; then
  exit 0
fi
touch .seamchart-stop-checked
echo "before stopping, read back what you wrote" >&2
exit 2
