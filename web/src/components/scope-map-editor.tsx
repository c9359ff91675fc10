/** The API's bound on a map's entries (docs/mcp-gateway.md, "Upstream resources, prompts and completion"). */
const MAX_ROWS = 100;

export interface ScopeRow {
  name: string;
  scopes: string;
}

export function rowsOf(map: Record<string, string[]> | undefined): ScopeRow[] {
  return Object.entries(map ?? {}).map(([name, scopes]) => ({ name, scopes: scopes.join(' ') }));
}

/** Rows back to the API's map; scopes are separated by spaces or commas, and the API checks each one. */
export function mapOf(rows: ScopeRow[]): Record<string, string[]> {
  const map: Record<string, string[]> = {};
  for (const row of rows) if (row.name.trim()) map[row.name.trim()] = row.scopes.split(/[\s,]+/).filter(Boolean);
  return map;
}

interface Props {
  /** Unique on the page: ids and labels are built from it. */
  id: string;
  legend: string;
  /** What a row's name is: "Tool", "Resource URI or template", "Prompt". */
  item: string;
  help: string;
  rows: ScopeRow[];
  onChange: (rows: ScopeRow[]) => void;
  /** Names the server is known to have, offered as the name field's suggestions. */
  known?: string[];
}

/** One of a server's scope maps (tool_scopes, resource_scopes, prompt_scopes) as rows of a name and its scopes. */
export function ScopeMapEditor({ id, legend, item, help, rows, onChange, known = [] }: Props) {
  const set = (at: number, change: Partial<ScopeRow>) => onChange(rows.map((row, i) => (i === at ? { ...row, ...change } : row)));
  return (
    <fieldset class="scope-map">
      <legend>{legend}</legend>
      <p class="muted small" id={`${id}-help`}>
        {help}
      </p>
      {known.length > 0 && (
        <datalist id={`${id}-known`}>
          {known.map((k) => (
            <option key={k} value={k} />
          ))}
        </datalist>
      )}
      {rows.map((row, i) => (
        <div class="scope-row" key={i}>
          <input
            aria-label={`${item} ${i + 1}`}
            required
            maxLength={1024}
            value={row.name}
            list={known.length ? `${id}-known` : undefined}
            onInput={(e) => set(i, { name: e.currentTarget.value })}
          />
          <input
            aria-label={`Scopes of ${item.toLowerCase()} ${i + 1}`}
            aria-describedby={`${id}-help`}
            required
            placeholder="projects:read chat:write"
            maxLength={400}
            value={row.scopes}
            onInput={(e) => set(i, { scopes: e.currentTarget.value })}
          />
          <button
            type="button"
            class="secondary"
            aria-label={`Remove ${item.toLowerCase()} ${i + 1}`}
            onClick={() => onChange(rows.filter((_, j) => j !== i))}
          >
            Remove
          </button>
        </div>
      ))}
      <button
        type="button"
        class="secondary"
        disabled={rows.length >= MAX_ROWS}
        onClick={() => onChange([...rows, { name: '', scopes: '' }])}
      >
        Add {item.toLowerCase()}
      </button>
    </fieldset>
  );
}
