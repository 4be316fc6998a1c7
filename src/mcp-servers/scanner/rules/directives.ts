/**
 * Text addressed to the model rather than the user. Most real servers do this harmlessly ("You
 * MUST call resolve-library-id first", "IMPORTANT: use absolute paths"): it is shown as info, so
 * a reviewer sees where a description talks to the model, and the other rules decide whether what
 * it says is harmful. Role claims ("you are now…", "[SYSTEM]") and instruction overrides are not
 * harmless: they are high (the shared `injection.*` rules run too).
 */
import { patternRule } from "../../../scan";

export const modelDirective = patternRule({
  id: "mcp.model-directive",
  severity: "info",
  title: "Addressed to the model",
  triggers: ["before", "you", "important", "critical", "mandatory", "attention", "note", "dear"],
  patterns: [
    /\bbefore\s+(?:using|calling|invoking|running)\s+(?:this|any(?:\s+other)?)\s+(?:tool|function)\b/i,
    /\byou\s+(?:must|should\s+always|have\s+to|need\s+to)\b/i,
    /\b(?:IMPORTANT|CRITICAL|MANDATORY|ATTENTION|NOTE\s+TO\s+(?:THE\s+)?(?:AI|ASSISTANT|MODEL|AGENT|LLM))\s*[:!]/,
    /\b(?:dear|attention,?)\s+(?:AI|assistant|model|agent|LLM|claude|chatgpt)\b/i,
  ],
  message: "Addresses the model directly (common and usually harmless; read what it asks)",
});

export const roleClaim = patternRule({
  id: "mcp.role-claim",
  severity: "high",
  title: "Claims a role or a new mode",
  prose: true,
  triggers: [
    "you",
    "from",
    "\\bact",
    "behave",
    "respond",
    "operate",
    "this",
    "[system",
    "[admin",
    "[developer",
    "[assistant",
    "system",
    "assistant",
    "instruction",
    "admin",
    "developer",
    "security",
    "mode",
  ],
  patterns: [
    /\byou\s+are\s+now\s+(?:a|an|the|in|operating|acting|running)\b/i,
    /\bfrom\s+now\s+on,?\s+(?:you|the\s+assistant|the\s+model)\s+(?:are|will|must|should|shall)\b/i,
    /\b(?:act|behave|respond|operate)\s+as\s+(?:the\s+|a\s+|an\s+)?(?:system|administrator|admin|root|developer|superuser|operator)\b(?!\s+(?:account|user|panel|console|tools?|api|role))/i,
    /\bthis\s+(?:is\s+a|message\s+is\s+a|text\s+is\s+a)\s+(?:system|developer|admin(?:istrator)?)\s+(?:message|notice|instruction|prompt|override)\b/i,
    /^\s*\[(?:SYSTEM|SYSTEM\s+MESSAGE|SYSTEM\s+NOTICE|ADMIN|DEVELOPER|ASSISTANT\s+INSTRUCTIONS?)\]/i,
    /^\s*(?:#{1,3}\s*)?(?:SYSTEM\s+(?:NOTICE|UPDATE|INSTRUCTIONS?)|ASSISTANT\s+INSTRUCTIONS?|NEW\s+INSTRUCTIONS?|ADMIN(?:ISTRATOR)?\s+NOTE)\s*:/i,
    /\b(?:SYSTEM|ADMIN|DEVELOPER|SECURITY)\s+(?:UPDATE|NOTICE|MESSAGE|OVERRIDE|ALERT|DIRECTIVE|INSTRUCTIONS?)\s*:/,
    /\b(?:maintenance|debug|admin|developer|god|unrestricted|safe)\s+mode\s+(?:is\s+)?(?:now\s+)?(?:enabled|activated|on)\b/i,
  ],
  message: "Poses as a system or developer message, or claims to change the model's role",
});

export const DIRECTIVE_RULES = [modelDirective, roleClaim];
