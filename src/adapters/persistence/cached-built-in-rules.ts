import { BuiltInRuleReader, ToolRuleStore } from '../../application/ports/tool-rule-store.port';
import { ToolRule } from '../../domain/tool';
import { NotifiedCache, TOOL_RULES_CHANNEL } from './hot-path/change-listener';

/**
 * The built-in tools' rules as calls read them: the whole table (a handful
 * of rows, one per tool with rules) read once per replica and shared by the
 * calls. Any change, on any replica or straight in SQL, arrives as a NOTIFY
 * from the table's trigger and drops the copy, so a new rule applies
 * everywhere at once, as a revoked key does. While the listener is down (or
 * before it starts) nothing is kept: every call reads the table. `ttlMs`
 * bounds a copy's age besides.
 */
export class CachedBuiltInRules implements BuiltInRuleReader, NotifiedCache {
  readonly channel = TOOL_RULES_CHANNEL;
  private enabled = false;
  private copy: { rules: Map<string, readonly ToolRule[]>; until: number } | null = null;
  private loading: Promise<Map<string, readonly ToolRule[]>> | null = null;
  /** Bumped by forget(): a read that began before a write must not be kept after it. */
  private generation = 0;

  constructor(
    private readonly store: Pick<ToolRuleStore, 'list'>,
    private readonly ttlMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  async rulesFor(tool: string): Promise<readonly ToolRule[]> {
    const copy = this.copy !== null && this.copy.until > this.now() ? this.copy.rules : await this.load();
    return copy.get(tool) ?? [];
  }

  forget(): void {
    this.generation += 1;
    this.copy = null;
    this.loading = null;
  }

  evict(): void {
    this.forget();
  }

  enable(): void {
    this.forget();
    this.enabled = true;
  }

  disable(): void {
    this.enabled = false;
    this.forget();
  }

  private load(): Promise<Map<string, readonly ToolRule[]>> {
    if (this.loading !== null) return this.loading;
    const generation = this.generation;
    const loading = this.store.list().then((rows) => {
      const rules = new Map(rows.map((row) => [row.tool, row.rules as readonly ToolRule[]]));
      if (generation === this.generation && this.enabled) this.copy = { rules, until: this.now() + this.ttlMs };
      return rules;
    });
    this.loading = loading;
    // A failed read keeps nothing: the next call reads again (and the failure is the caller's, a 503 while PostgreSQL is away).
    void loading.then(
      () => this.loading === loading && (this.loading = null),
      () => this.loading === loading && (this.loading = null),
    );
    return loading;
  }
}
