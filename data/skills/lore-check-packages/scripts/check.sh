#!/bin/sh
# Checks package names with Lore before installing them.
# Usage: sh check.sh <ecosystem> <name> [name ...]    (ecosystem: npm, pypi, cargo or go)
# Run it with sh from the project's folder (skill installers do not keep the executable bit).
# Needs LORE_API_KEY in the environment. Lore's address: LORE_URL; without it, the `lore` entry of
# the harness's MCP configuration (see lore_url below); without one, http://127.0.0.1:8787.
set -eu

if [ "$#" -lt 2 ]; then
  echo "usage: sh $0 <npm|pypi|cargo|go> <name> [name ...]" >&2
  exit 2
fi
: "${LORE_API_KEY:?set LORE_API_KEY to your agent key}"

# The origin of the `lore` server in an MCP configuration file: the first
# http(s)://host[:port]/v1/mcp URL on the line that names `lore` (a JSON key, a YAML key or
# Codex's [mcp_servers.lore] table) or on the 8 lines after it.
lore_url_in() {
  awk '
    {
      line = $0
      if (!on && match(line, /"lore"[ \t]*:|^[ \t]*lore[ \t]*:|\[mcp_servers\.lore\]/)) { on = 1; n = 0; line = substr(line, RSTART) }
      if (on) {
        if (match(line, /https?:\/\/[]A-Za-z0-9.:[-]+\/v1\/mcp/)) { print substr(line, RSTART, RLENGTH - 7); exit }
        if (++n > 8) on = 0
      }
    }
  ' "$1"
}

# LORE_URL, else the project's MCP configuration, else the user's, else the local default.
lore_url() {
  if [ -n "${LORE_URL:-}" ]; then
    printf '%s\n' "$LORE_URL"
    return
  fi
  for f in .mcp.json opencode.json opencode.jsonc .gemini/settings.json .codex/config.toml \
    "$HOME/.claude.json" "$HOME/.openclaude.json" "$HOME/.codex/config.toml" "$HOME/.gemini/settings.json" \
    "$HOME/.config/opencode/opencode.json" "$HOME/.kimi/mcp.json" "$HOME/.copilot/mcp-config.json" "$HOME/.hermes/config.yaml" \
    "$HOME/.openclaw/openclaw.json" "$HOME/.cline/data/settings/cline_mcp_settings.json"; do
    [ -f "$f" ] || continue
    url=$(lore_url_in "$f")
    if [ -n "$url" ]; then
      echo "check.sh: Lore at $url (from $f; set LORE_URL to choose another)" >&2
      printf '%s\n' "$url"
      return
    fi
  done
  echo "check.sh: Lore at http://127.0.0.1:8787 (no LORE_URL and no lore entry in an MCP configuration)" >&2
  printf '%s\n' "http://127.0.0.1:8787"
}

url=$(lore_url)
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
