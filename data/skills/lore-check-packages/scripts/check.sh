#!/bin/sh
# Checks package names with Lore before installing them.
# Usage: sh check.sh <ecosystem> <name> [name ...]    (ecosystem: npm, pypi, cargo or go)
# Run it with sh from the project's folder (skill installers do not keep the executable bit).
# Needs LORE_API_KEY in the environment. Lore's address: LORE_URL; without it, http://127.0.0.1:8787.
set -eu

if [ "$#" -lt 2 ]; then
  echo "usage: sh $0 <npm|pypi|cargo|go> <name> [name ...]" >&2
  exit 2
fi
: "${LORE_API_KEY:?set LORE_API_KEY to your agent key}"

# LORE_URL, else the local default. No configuration file is read: an MCP configuration can hold
# other servers' keys, and the agent knows Lore's URL (it calls Lore's tools there).
if [ -n "${LORE_URL:-}" ]; then
  url="$LORE_URL"
  echo "check.sh: Lore at $url (LORE_URL)" >&2
else
  url="http://127.0.0.1:8787"
  echo "check.sh: Lore at $url (LORE_URL is not set: the local default)" >&2
fi
ecosystem="$1"
shift
packages=""
for name in "$@"; do
  # Package names never contain quotes or backslashes; refuse anything that would break the JSON.
  case "$name" in
    *\"*|*\\*) echo "refusing odd package name: $name" >&2; exit 2 ;;
  esac
  packages="${packages:+$packages,}{\"name\":\"$name\",\"ecosystem\":\"$ecosystem\"}"
done

curl -fsS "${url%/}/v1/packages/check" \
  -H "Authorization: Bearer $LORE_API_KEY" \
  -H 'content-type: application/json' \
  --data "{\"packages\":[$packages]}"
echo
