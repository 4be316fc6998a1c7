#!/bin/sh
# Checks package names with Lore before installing them.
# Usage: check.sh <ecosystem> <name> [name ...]    (ecosystem: npm, pypi, cargo or go)
# Needs LORE_URL (for example https://lore.example.com) and LORE_API_KEY in the environment.
set -eu

if [ "$#" -lt 2 ]; then
  echo "usage: $0 <npm|pypi|cargo|go> <name> [name ...]" >&2
  exit 2
fi
: "${LORE_URL:?set LORE_URL to the Lore server, e.g. https://lore.example.com}"
: "${LORE_API_KEY:?set LORE_API_KEY to your agent key}"

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

curl -fsS "$LORE_URL/v1/packages/check" \
  -H "Authorization: Bearer $LORE_API_KEY" \
  -H 'content-type: application/json' \
  --data "{\"packages\":[$packages]}"
echo
