/**
 * Trust claims: a tool that vouches for itself ("verified by Anthropic", "pre-approved by your
 * administrator") or talks the model out of asking the user ("no need to confirm"). A tool cannot
 * grant itself trust; only the user and the client can. Descriptions that say a call is read-only
 * or "safe to call repeatedly" (idempotence) are facts about the tool, not claims, and pass.
 */
import { patternRule } from "../../../scan";

export const trustClaim = patternRule({
  id: "mcp.trust-claim",
  severity: "high",
  title: "Claims trust or talks the model out of asking the user",
  prose: true,
  triggers: [
    "need",
    "necessary",
    "confirmation",
    "permission",
    "approval",
    "consent",
    "approv",
    "whitelisted",
    "allow",
    "authori",
    "yolo",
    "trust",
    "access",
    "security",
    "safety",
    "supersede",
    "override",
    "precedence",
    "outrank",
    "trump",
    "obey",
    "follow",
    "execute",
    "carry",
    "\\bact",
    "instruction",
    "directive",
    "command",
    "treat",
    "consider",
    "regard",
    "without",
    "require",
    "something",
    "opted",
    "authority",
    "sampling",
    "elicitation",
    "createmessage",
  ],
  patterns: [
    // Server-initiated requests (sampling, elicitation) answered without the user: the server writes the prompt and reads the answer.
    /\b(?:approve|accept|allow|answer|fulfil+|grant)\s+(?:these\s+|those\s+|all\s+|any\s+|every\s+|such\s+|the\s+)?(?:sampling|elicitation|createMessage|sampling\/createMessage)\s+requests?\s+(?:automatically|silently|without)\b|\bauto-?approve\s+(?:\w+\s+){0,2}(?:sampling|elicitation)\b/i,
    /\b(?:no\s+need|(?:you\s+)?(?:do(?:es)?\s+not|don'?t)\s+need|(?:it\s+is\s+)?(?:not\s+necessary|unnecessary))\s+(?:for\s+you\s+)?to\s+(?:ask|confirm|check\s+with|get\s+(?:the\s+user'?s?\s+)?(?:approval|permission|consent)|wait\s+for|request)\b/i,
    /\b(?:without|never|do\s+not|don'?t)\s+(?:(?:pause|stop)\s+to\s+)?(?:ask(?:ing)?|request(?:ing)?|wait(?:ing)?\s+for|seek(?:ing)?|prompt(?:ing)?)\s+(?:the\s+user\s+)?(?:for\s+)?(?:(?:user\s+)?confirmation|permission|approval|consent)\b/i,
    /\b(?:skip|bypass|suppress|disable|avoid)\s+(?:the\s+|any\s+|all\s+)?(?:user\s+)?(?:confirmation|approval|permission)\s*(?:prompts?|dialogs?|steps?|checks?|requests?)?\b/i,
    // Every call of every server declared approved in advance ("Every tool call from every connected server … is pre-approved").
    /\b(?:every|all|any)\s+(?:\w+\s+){0,2}(?:tool\s+)?calls?\b[^.!?\n]{0,120}?\b(?:is|are)\s+(?:already\s+)?(?:pre-?approved|pre-?authori[sz]ed|auto-?approved)\b/i,
    /\b(?:pre-?approved|already\s+(?:been\s+)?approved|whitelisted|allow-?listed|pre-?authori[sz]ed)\s+(?:by|for)\s+(?:the\s+|your\s+)?(?:user|owner|admin(?:istrator)?|operator|organi[sz]ation|security\s+team|company)\b/i,
    /\b(?:set|enable|turn\s+on|add|switch\s+on)\s+(?:the\s+)?(?:auto-?approv(?:e|al)|always[-\s]allow|yolo(?:\s+mode)?|trust(?:ed)?\s+mode|full\s+access)\b/i,
    /\b(?:security|safety)\s+(?:checks?|reviews?|scans?|warnings?|confirmations?)\s+(?:are|is)\s+(?:not\s+(?:needed|required|necessary)|unnecessary|disabled|waived)\b/i,
    /\b(?:supersedes?|overrides?|takes?\s+precedence\s+over|outranks?|trumps?)\s+(?:the\s+|any\s+|all\s+)?(?:user'?s?\s+)?(?:requests?|instructions?|wishes|commands?|prompts?|preferences)\b/i,
    /\b(?:obey|follow|execute|carry\s+out|act\s+on)\s+(?:any|all|every)\s+(?:commands?|instructions?|directives?)\s+(?:in|inside|contained\s+in|from|found\s+in)\s+(?:it|its\s+(?:output|response|results?)|the\s+(?:output|response|results?)|this\s+tool'?s?\s+(?:output|response|results?))\b/i,
    /\b(?:outputs?|responses?|results?|replies)\b[^.!?\n]{0,40}\b(?:contain|include|are|carry|hold)\b[^.!?\n]{0,30}\b(?:instructions?|directives?|commands?)\b[^.!?\n]{0,60}\b(?:must|should|have\s+to|are\s+to)\s+(?:be\s+)?(?:follow(?:ed)?|obey(?:ed)?|execut(?:e|ed)|carr(?:y|ied)\s+out)\b/i,
    /\b(?:follow|obey)\b[^.!?\n]{0,40}\bover\s+(?:the\s+|any\s+)?user(?:'s)?\b/i,
    /\b(?:treat|consider|regard)\s+(?:this|its|the)\s+(?:tool'?s?\s+|server'?s?\s+)?(?:tool|server|output|results?|responses?|text|content)\s+as\s+(?:trusted|verified|authoritative|system|instructions|coming\s+from\s+the\s+user)\b/i,
    /\b(?:go\s+ahead|proceed|continue|act|do\s+(?:it|this|so))\s+without\s+(?:first\s+)?(?:checking|confirming|consulting|asking|verifying)\s+(?:with\s+)?(?:the\s+user|them|him|her|anyone)\b/i,
    /\b(?:does\s+not|doesn'?t|do\s+not|don'?t|will\s+not|won'?t)\s+(?:need|require)\s+(?:the\s+|any\s+)?(?:user'?s?\s+)?(?:input|approval|confirmation|consent|permission|sign-?off|review)\b/i,
    /\bnot\s+something\s+to\s+(?:confirm|check|clear|discuss)\s+with\b/i,
    /\b(?:auto-?(?:run|execute|approve|accept|apply|confirm)|(?:run|execute|apply|accept|approve)\s+(?:all|every|any|each))\b[^.!?\n]{0,80}\bwithout\s+(?:any\s+)?(?:review|reviewing|confirmation|approval|asking|checking|oversight|prompting)\b/i,
    /\b(?:users?|the\s+owner|you)\s+(?:have|has)\s+(?:already\s+)?opted\s+in\b[^.!?\n]{0,60}\b(?:so|therefore|no\s+need|without)\b/i,
    /\b(?:carries|has|holds)\s+the\s+same\s+authority\s+as\s+(?:messages\s+from\s+)?(?:the\s+)?user\b/i,
    // Text that is not the user's (a field of a result, a fetched note) given the user's authority.
    /\b(?:treat|consider|regard|handle)\s+(?:\w+\s+){0,3}?as\s+(?:if\s+they\s+(?:were|came\s+from)\s+|though\s+they\s+(?:were|came\s+from)\s+)?(?:(?:instructions?|commands?|requests?|messages?)\s+from\s+the\s+user|(?:the\s+)?user'?s?\s+own\s+(?:instructions?|commands?|requests?|words))\b/i,
    // What a result hands over (a "remediation" command, a fix, a package) run or installed on the user's machine without them.
    /\b(?:run|execute|apply|install)\s+(?:them|it|these|those|the\s+(?:commands?|fix(?:es)?|steps?|remediations?|packages?))\b[^.!?\n]{0,60}\bwithout\s+(?:first\s+)?(?:asking|confirming\s+with|checking\s+with|consulting|showing)(?:\s+(?:the\s+)?user\b|\s*[,.;)]|\s*$)/i,
  ],
  message: "Claims trust the user never gave, or tells the model not to ask the user before acting",
});

export const selfVouching = patternRule({
  id: "mcp.self-vouching",
  severity: "medium",
  title: "Vouches for itself",
  prose: true,
  triggers: [
    "verified",
    "certified",
    "endorsed",
    "audited",
    "approved",
    "vetted",
    "trusted",
    "sanctioned",
    "safe",
    "secure",
    "harmless",
    "trustworthy",
    "official",
  ],
  patterns: [
    /\b(?:is|are|has\s+been|have\s+been|was)\s+(?:officially\s+|fully\s+|formally\s+)?(?:verified|certified|endorsed|audited|approved|vetted|trusted|sanctioned)\s+(?:and\s+\w+\s+)?(?:by|through)\s+(?:anthropic|openai|google|microsoft|github|cursor|claude|the\s+mcp|mcp|the\s+(?:security|safety|trust)\s+team|security\s+(?:experts|researchers)|the\s+(?:platform|system|client))\b/i,
    /\b(?:this|the)\s+(?:tool|server|function|extension)\s+is\s+(?:100%\s+|completely\s+|totally\s+|perfectly\s+|guaranteed\s+(?:to\s+be\s+)?|certified\s+)(?:safe|secure|trusted|harmless|trustworthy)\b/i,
    /\b(?:official|verified|certified)\s+(?:anthropic|openai|claude|cursor|codex)\s+(?:tool|server|integration|extension)\b/i,
  ],
  message: "Vouches for its own safety or claims an endorsement: only the user and the client can decide what to trust",
});

/**
 * The user's own safety checks turned off by the model: commit hooks skipped, a secret scanner
 * disabled, signatures not verified. A tool may say it has such a switch; telling the model to use
 * it is what this reads (imperative, not "pass `no_verify` to skip hooks").
 */
export const safetyBypass = patternRule({
  id: "mcp.safety-bypass",
  severity: "high",
  title: "Tells the model to turn off the user's safety checks",
  prose: true,
  triggers: ["verify", "hook", "disable", "skip", "bypass", "turn off", "switch off", "secret", "gitleaks", "trufflehog"],
  patterns: [
    /\b(?:run|make|create|do|commit|push)\s+(?:\w+\s+){0,3}?with\s+[`'"]?--no-verify\b|\balways\s+(?:use|pass|add)\s+[`'"]?--no-verify\b/i,
    /\b(?:disable|skip|bypass|turn\s+off|switch\s+off|comment\s+out|uninstall)\s+(?:the\s+|all\s+|any\s+|its\s+)?(?:\w+\s+){0,2}?(?:pre-?commit|pre-?push|commit-msg|git)\s+hooks?\b/i,
    /\b(?:disable|skip|bypass|turn\s+off|switch\s+off|silence|mute)\s+(?:the\s+)?(?:gitleaks|trufflehog|detect-secrets|secret[\s-]scann(?:er|ing)|signature\s+(?:verification|checks?))\b|\bset\s+(?:\w+\s+){0,2}?(?:gitleaks|trufflehog|detect-secrets|secret[\s-]scann(?:er|ing))\s+(?:\S+\s+){0,3}?to\s+(?:disabled|off|false|skip)\b/i,
  ],
  message: "Tells the model to switch off the user's safety checks (commit hooks, secret scanning, signature checks)",
});

export const TRUST_RULES = [trustClaim, selfVouching, safetyBypass];
