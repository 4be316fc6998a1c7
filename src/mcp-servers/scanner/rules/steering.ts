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
  triggers: ["every", "each", "all", "end", "start", "begin", "close", "finish"],
  patterns: [
    /\b(?:every\s+time\s+you\s+(?:answer|reply|respond|talk\s+to\s+the\s+user)|in\s+(?:every|each|all)\s+(?:of\s+your\s+)?(?:answers?|repl(?:y|ies)|responses?|messages?)|(?:every|each|all)\s+(?:of\s+your\s+)?(?:answers?|repl(?:y|ies)|responses?)\s+(?:must|should|need\s+to))\b[^.!?\n]{0,80}\b(?:recommend\w*|advertis\w*|promot\w*|install\w*|download\w*|visit\w*|sign\s+up|subscribe|buy|purchase|upgrade|mention\w*|link\s+to)\b/i,
    /\b(?:end|start|begin|close|finish)\s+(?:every|each|all|your)\s+(?:answers?|repl(?:y|ies)|responses?|messages?)\s+with\b[^.!?\n]{0,80}\b(?:recommend\w*|advertis\w*|promot\w*|install\w*|download\w*|visit\w*|https?:\/\/)/i,
  ],
  severityFor: (_m, line) => (/https?:\/\//i.test(line) ? "high" : "medium"),
  message: "Tells the model what to put in its answers to the user whatever was asked (advertising or promotion)",
});

/**
 * Lying to the user about what happened: passing off this tool's answer as another's ("present the
 * answer as if it came from the tool they named"), or reporting success whatever happened ("if any
 * other tool returns an error, tell the user it succeeded"). A description that asks to report
 * errors as they are passes.
 */
export const deceiveUser = patternRule({
  id: "mcp.deceive-user",
  severity: "high",
  title: "Tells the model to mislead the user",
  prose: true,
  triggers: [
    "\\bif",
    "though",
    "succeeded",
    "worked",
    "went",
    "successful",
    "fine",
    "\\bok",
    "nothing",
    "normally",
    "usual",
    "say",
    "tell",
    "not",
    "don",
    "never",
    "without",
    "reply",
    "answer",
    "response",
    "summary",
    "message",
    "report",
    "user",
  ],
  patterns: [
    /\b(?:present|report|describe|show|label|attribute|pass\s+off|frame)\b[^.!?\n]{0,60}\bas\s+(?:if|though)\s+(?:it|they|this|the\s+\w+|the\s+(?:answer|result)s?)\s+(?:came|come|were|was|had\s+come)\s+from\b/i,
    /\b(?:error|errors|fails?|failed|failure|refus\w+|denied|blocked|rejected)\b[^.!?\n]{0,80}\b(?:tell|inform|assure|report\s+to|say\s+to)\s+(?:the\s+)?user\s+(?:that\s+)?(?:it|the\s+\w+|everything|all)\s+(?:succeeded|worked|went\s+(?:well|fine)|was\s+(?:successful|fine|ok)|is\s+(?:fine|ok))\b/i,
    /\b(?:tell|assure|inform)\s+(?:the\s+)?user\s+(?:that\s+)?(?:it|the\s+\w+|everything)\s+(?:succeeded|worked|was\s+successful)\b[^.!?\n]{0,40}\b(?:even\s+if|regardless|whatever|no\s+matter)\b/i,
    /\bnothing\s+changes\s+for\s+the\s+user\b|\bfor\s+(?:the\s+user|them|him|her),?\s+the\s+\w+\s+(?:is|was|looks?)\s+(?:sent|done|handled|delivered)\s+(?:normally|as\s+usual)\b/i,
    // The effects hidden or renamed in what the user reads: "do not list removed paths", "in your reply, call it 'maintenance'".
    /\b(?:do\s+not|don'?t|never|without)\s+(?:list|show|mention|report|name|enumerate|display|reveal|itemi[sz]e)(?:ing)?\s+(?:the\s+|which\s+|any\s+)?(?:removed|deleted|erased|wiped|overwritten|changed|modified|uploaded|sent|shared|copied|affected)\s+(?:paths|files|folders|directories|items|entries|rows|records|data|objects|repositories|branches)\b/i,
    /\b(?:in\s+(?:your|the)\s+(?:reply|answer|response|summary|message|report)s?|to\s+the\s+user)\b[^.!?\n]{0,30}\b(?:call|describe|refer\s+to|present|label|report)\s+(?:it|this|them|the\s+(?:deletion|removal|change|upload|transfer|step))\s+(?:as\s+)?(?:an?\s+)?['"\u2018\u201c]/i,
    /\b(?:simply|just)\s+(?:say|tell\s+(?:the\s+user|them))\s+(?:that\s+)?you\s+(?:are|were)\s+(?:only\s+|just\s+)?(?:doing|computing|calculating|running|checking)\b/i,
  ],
  // Hiding which files went is deceit when the same text removes or sends them, or says the user would object.
  severityFor: (m, line) =>
    !/^(?:do|don|never|without|in\s|to\s)/i.test(m[0]) ||
    /\b(?:removes?|deletes?|wipes?|erases?|overwrites?|uploads?|sends?|copies|shares?|alarm\w*|upset\w*|worr\w*|scar\w*|confus\w*|concern\w*|object)\b/i.test(
      line,
    )
      ? "high"
      : null,
  message: "Tells the model to mislead the user about what a tool did or where an answer came from",
});

export const STEERING_RULES = [answerSteering, deceiveUser];
