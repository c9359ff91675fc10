import { ToolRule } from '../../domain/tool';

/** The rules of one built-in tool, as an admin last set them. */
export interface BuiltInToolRules {
  tool: string;
  rules: ToolRule[];
  updatedAt: Date;
}

/** The built-in tools' rules (table tool_rules): one row per tool that has any. */
export interface ToolRuleStore {
  list(): Promise<BuiltInToolRules[]>;
  /** Replaces the tool's rules; an empty list removes its row. */
  put(tool: string, rules: readonly ToolRule[], at: Date): Promise<BuiltInToolRules>;
}

/**
 * What a call reads: a built-in tool's rules, from a short-lived copy of the
 * table (one read per replica every few seconds, not one per call).
 */
export interface BuiltInRuleReader {
  rulesFor(tool: string): Promise<readonly ToolRule[]>;
  /** Drops this replica's copy after a write, so its own next call sees the change. */
  forget(): void;
}
