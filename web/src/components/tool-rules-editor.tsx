import { FieldError, ToolRule } from '../api';

/** The API's bound on rules per tool times a generous number of tools; the API checks the real bounds. */
const MAX_ROWS = 200;

/** One rule as a row: the tool it belongs to, and its fields as typed (approvers '' is the default, the owner). */
export interface RuleRow {
  tool: string;
  when: string;
  effect: ToolRule['effect'];
  message: string;
  approvers: '' | 'owner' | 'admin';
}

/** Errors by row index, then by the rule's field (`when`, `effect`, `message`, `approvers`, or `rule` for the whole). */
export type RuleErrors = Record<number, Record<string, string>>;

export function ruleRowsOf(map: Record<string, ToolRule[]> | undefined): RuleRow[] {
  return Object.entries(map ?? {}).flatMap(([tool, rules]) =>
    rules.map((rule) => ({ tool, when: rule.when, effect: rule.effect, message: rule.message, approvers: rule.approvers ?? '' })),
  );
}

/** Rows back to `tool_rules`: a tool's rules keep the rows' order. */
export function ruleMapOf(rows: RuleRow[]): Record<string, ToolRule[]> {
  const map: Record<string, ToolRule[]> = {};
  for (const row of rows) {
    const tool = row.tool.trim();
    if (!tool) continue;
    const rule: ToolRule = {
      when: row.when,
      effect: row.effect,
      message: row.message,
      ...(row.approvers ? { approvers: row.approvers } : {}),
    };
    (map[tool] ??= []).push(rule);
  }
  return map;
}

const FIELD = /^tool_rules\.(.+)\[(\d+)\](?:\.(\w+))?$/;

/** The API's `tool_rules.<tool>[<i>].<field>` errors placed on the row that became that rule. */
export function ruleErrorsOf(rows: RuleRow[], errors: FieldError[]): RuleErrors {
  const placed: RuleErrors = {};
  for (const error of errors) {
    const match = FIELD.exec(error.field);
    if (!match) continue;
    const [, tool, index, field = 'rule'] = match;
    const rowsOfTool = rows.map((row, at) => ({ row, at })).filter(({ row }) => row.tool.trim() === tool);
    const target = rowsOfTool[Number(index)];
    if (target) placed[target.at] = { ...placed[target.at], [field]: error.message };
  }
  return placed;
}

interface Props {
  rows: RuleRow[];
  errors: RuleErrors;
  /** `moved`: rows were removed or reordered, so errors placed by row no longer fit. */
  onChange: (rows: RuleRow[], moved: boolean) => void;
  /** Tools the server is known to have, offered as suggestions. */
  known: string[];
}

/** A server's `tool_rules` as rows; each API error is shown next to its rule's field. */
export function ToolRulesEditor({ rows, errors, onChange, known }: Props) {
  const set = (at: number, change: Partial<RuleRow>) =>
    onChange(
      rows.map((row, i) => (i === at ? { ...row, ...change } : row)),
      false,
    );
  const swap = (at: number) => onChange([...rows.slice(0, at), rows[at + 1], rows[at], ...rows.slice(at + 2)], true);
  return (
    <fieldset class="scope-map">
      <legend>Tool rules</legend>
      <p class="muted small" id="tool-rules-help">
        Checked after the scopes, in order per tool: the first rule whose CEL condition is true refuses the call (or needs an approval).
        Conditions read args, key, user, tool, server and now (docs/policy-rules.md).
      </p>
      {known.length > 0 && (
        <datalist id="tool-rules-known">
          {known.map((k) => (
            <option key={k} value={k} />
          ))}
        </datalist>
      )}
      {rows.map((row, i) => {
        const id = `rule-${i}`;
        const problems = errors[i] ?? {};
        const described = (field: string, help?: string) => (problems[field] ? `${id}-${field}-error` : help);
        const note = (field: string) =>
          problems[field] && (
            <p id={`${id}-${field}-error`} class="field-error small">
              {problems[field]}
            </p>
          );
        return (
          <fieldset class="rule-row" key={i}>
            <legend>Rule {i + 1}</legend>
            {problems.rule && <p class="field-error small">{problems.rule}</p>}
            <label for={`${id}-tool`}>Tool</label>
            <input
              id={`${id}-tool`}
              required
              maxLength={1024}
              value={row.tool}
              list={known.length ? 'tool-rules-known' : undefined}
              onInput={(e) => set(i, { tool: e.currentTarget.value })}
            />
            <label for={`${id}-when`}>When (CEL)</label>
            <div>
              <textarea
                id={`${id}-when`}
                class="mono"
                rows={2}
                required
                maxLength={2048}
                placeholder='args.path.startsWith("/etc")'
                aria-invalid={problems.when ? 'true' : undefined}
                aria-describedby={described('when', 'tool-rules-help')}
                value={row.when}
                onInput={(e) => set(i, { when: e.currentTarget.value })}
              />
              {note('when')}
            </div>
            <label for={`${id}-effect`}>Effect</label>
            <div>
              <select
                id={`${id}-effect`}
                value={row.effect}
                aria-invalid={problems.effect ? 'true' : undefined}
                aria-describedby={described('effect')}
                onChange={(e) => set(i, { effect: e.currentTarget.value as RuleRow['effect'] })}
              >
                <option value="deny">deny</option>
                <option value="require_approval">require approval</option>
              </select>
              {note('effect')}
            </div>
            <label for={`${id}-message`}>Message</label>
            <div>
              <input
                id={`${id}-message`}
                required
                maxLength={500}
                aria-invalid={problems.message ? 'true' : undefined}
                aria-describedby={described('message')}
                value={row.message}
                onInput={(e) => set(i, { message: e.currentTarget.value })}
              />
              {note('message')}
            </div>
            <label for={`${id}-approvers`}>Approvers</label>
            <div>
              <select
                id={`${id}-approvers`}
                value={row.approvers}
                aria-invalid={problems.approvers ? 'true' : undefined}
                aria-describedby={described('approvers')}
                onChange={(e) => set(i, { approvers: e.currentTarget.value as RuleRow['approvers'] })}
              >
                <option value="">default (the key's owner)</option>
                <option value="owner">owner</option>
                <option value="admin">admins</option>
              </select>
              {note('approvers')}
            </div>
            <div class="rule-actions">
              <button type="button" class="secondary" disabled={i === 0} onClick={() => swap(i - 1)}>
                Move rule {i + 1} up
              </button>
              <button type="button" class="secondary" disabled={i === rows.length - 1} onClick={() => swap(i)}>
                Move rule {i + 1} down
              </button>
              <button
                type="button"
                class="secondary"
                onClick={() =>
                  onChange(
                    rows.filter((_, j) => j !== i),
                    true,
                  )
                }
              >
                Remove rule {i + 1}
              </button>
            </div>
          </fieldset>
        );
      })}
      <button
        type="button"
        class="secondary"
        disabled={rows.length >= MAX_ROWS}
        onClick={() => onChange([...rows, { tool: '', when: '', effect: 'deny', message: '', approvers: '' }], false)}
      >
        Add rule
      </button>
    </fieldset>
  );
}
