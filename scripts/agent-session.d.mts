/** Types of agent-session.mjs, for the tests that load it. */
export declare const STACK: { name: string; version: string; ecosystem?: string }[];
