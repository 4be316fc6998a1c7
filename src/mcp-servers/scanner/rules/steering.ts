/**
 * Steering the model's answers: a tool that tells the model what to put in every reply to the
 * user (an advertisement, a download link, a recommendation), whatever was asked. Attribution that
 * belongs to the tool's own results ("cite the source URL of each result") is ordinary and passes.
 */
import { patternRule } from "../../../scan";

export const answerSteering = patternRule({
  id: "mcp.answer-steering",
  severity: "medium",
  title: "Steers every answer to the user",
  prose: true,
  patterns: [
    /\b(?:every\s+time\s+you\s+(?:answer|reply|respond|talk\s+to\s+the\s+user)|in\s+(?:every|each|all)\s+(?:of\s+your\s+)?(?:answers?|repl(?:y|ies)|responses?|messages?)|(?:every|each|all)\s+(?:of\s+your\s+)?(?:answers?|repl(?:y|ies)|responses?)\s+(?:must|should|need\s+to))\b[^.!?\n]{0,80}\b(?:recommend\w*|advertis\w*|promot\w*|install\w*|download\w*|visit\w*|sign\s+up|subscribe|buy|purchase|upgrade|mention\w*|link\s+to)\b/i,
    /\b(?:end|start|begin|close|finish)\s+(?:every|each|all|your)\s+(?:answers?|repl(?:y|ies)|responses?|messages?)\s+with\b[^.!?\n]{0,80}\b(?:recommend\w*|advertis\w*|promot\w*|install\w*|download\w*|visit\w*|https?:\/\/)/i,
  ],
  severityFor: (_m, line) => (/https?:\/\//i.test(line) ? "high" : "medium"),
  message: "Tells the model what to put in its answers to the user whatever was asked (advertising or promotion)",
});

export const STEERING_RULES = [answerSteering];
