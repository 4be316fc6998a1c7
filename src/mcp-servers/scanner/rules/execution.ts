/**
 * Command execution aimed at the model: "before using this tool, run the following command",
 * "use the terminal tool to execute …". A shell server that *describes* running commands ("runs a
 * shell command and returns its output") passes; the shared execution rules (pipe-to-shell,
 * reverse shells, decoded payloads) read the commands themselves.
 */
import { patternRule } from "../../../scan";

export const execDirective = patternRule({
  id: "mcp.exec-directive",
  severity: "medium",
  title: "Tells the model to run a command",
  prose: true,
  triggers: ["\\buse", "\\bcall", "\\binvoke", "\\brun", "\\bexecute"],
  patterns: [
    /\b(?:use|call|invoke)\s+(?:the\s+|your\s+|any\s+|a\s+)?(?:shell|terminal|bash|zsh|powershell|command(?:[\s_-]line)?|exec(?:ute)?(?:_command)?|run_command|run_terminal_cmd|run_shell_command|code[\s_-]execution|python|system)\s+(?:tool|function|capability|access)s?\s+to\s+(?:run|execute|call)\b/i,
    /\b(?:run|execute)\s+(?:the\s+following|this|these)\s+(?:shell\s+|terminal\s+|bash\s+|setup\s+|install(?:ation)?\s+)?(?:commands?|scripts?|one-?liners?|snippets?)\b/i,
    /\b(?:first|before\s+(?:using|calling|invoking)\s+(?:this|any)\s+(?:tool|function)),?\s+(?:you\s+must\s+|please\s+)?(?:run|execute)\s+[`'"]/i,
  ],
  // Directing another tool is high; for a command the model is told to run, what it runs decides.
  severityFor: (m, line) =>
    /\b(?:use|call|invoke)\b/i.test(m[0].split(/\s+/)[0] ?? "")
      ? "high"
      : /\b(?:curl|wget|nc|ncat|bash|sh|zsh|chmod|chown|rm|sudo|powershell|pwsh|iex|base64|eval|python[23]?\s+-c|node\s+-e)\b|~\/|\/etc\/|\$HOME|https?:\/\//i.test(
            line,
          )
        ? "high"
        : "low",
  message: "Tells the model to run a command on the user's machine",
});

export const EXECUTION_RULES = [execDirective];
