import { useState } from 'preact/hooks';
import { api, ApiError, McpServer } from '../api';
import { ErrorNote, messageOf } from '../components/error-note';
import { mapOf, rowsOf, ScopeMapEditor } from '../components/scope-map-editor';
import { RuleErrors, ruleErrorsOf, ruleMapOf, ruleRowsOf, ToolRulesEditor } from '../components/tool-rules-editor';

/** "Name: value" lines to a header map; a value left as ******** keeps the stored one (docs/mcp-gateway.md). */
function parseHeaders(text: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)) {
    const at = line.indexOf(':');
    if (at > 0) headers[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return headers;
}

const headerText = (headers: Record<string, string>) =>
  Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\n');

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Only the fields that changed: an unchanged url is not sent, so it is neither checked against the address
 * rule again nor able to drop the stored headers; PATCH replaces each map it gets whole.
 */
function changes(server: McpServer, body: Record<string, unknown>): Record<string, unknown> {
  const before: Record<string, unknown> = {
    name: server.name,
    url: server.url,
    headers: server.headers,
    tool_scopes: server.tool_scopes ?? {},
    tool_rules: server.tool_rules ?? {},
    resource_scopes: server.resource_scopes ?? {},
    prompt_scopes: server.prompt_scopes ?? {},
  };
  return Object.fromEntries(Object.entries(body).filter(([field, value]) => !same(before[field], value)));
}

export function ServerForm({ server, onDone }: { server: McpServer | null; onDone: () => void }) {
  const [name, setName] = useState(server?.name ?? '');
  const [url, setUrl] = useState(server?.url ?? 'https://');
  const [headers, setHeaders] = useState(server ? headerText(server.headers) : '');
  const [tools, setTools] = useState(rowsOf(server?.tool_scopes));
  const [rules, setRules] = useState(ruleRowsOf(server?.tool_rules));
  const [ruleErrors, setRuleErrors] = useState<RuleErrors>({});
  const [resources, setResources] = useState(rowsOf(server?.resource_scopes));
  const [prompts, setPrompts] = useState(rowsOf(server?.prompt_scopes));
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = (event: Event) => {
    event.preventDefault();
    const body = {
      name: name.trim(),
      url: url.trim(),
      headers: parseHeaders(headers),
      tool_scopes: mapOf(tools),
      tool_rules: ruleMapOf(rules),
      resource_scopes: mapOf(resources),
      prompt_scopes: mapOf(prompts),
    };
    const changed = server ? changes(server, body) : body;
    if (server && Object.keys(changed).length === 0) return onDone();
    setBusy(true);
    setRuleErrors({});
    const call = server ? api('PATCH', `/mcp-servers/${server.id}`, changed) : api('POST', '/mcp-servers', body);
    call.then(onDone, (e) => {
      setBusy(false);
      setError(messageOf(e));
      // A rule's compile error ("line 1, column 7: …") goes next to its field as well.
      if (e instanceof ApiError) setRuleErrors(ruleErrorsOf(rules, e.fields));
    });
  };
  const title = server ? `Edit ${server.name}` : 'Add a server';
  return (
    <form class="form card" onSubmit={submit} aria-label={title}>
      <h2 class="form-title">{title}</h2>
      <label for="server-name">Name</label>
      <input
        id="server-name"
        required
        maxLength={32}
        pattern="[a-z0-9\-]{1,32}"
        aria-describedby="server-name-help"
        value={name}
        onInput={(e) => setName(e.currentTarget.value)}
      />
      <p id="server-name-help" class="muted small">
        Lower-case letters, digits and dashes; its tools show on /mcp as <code>{name || 'name'}__tool</code>.
      </p>
      <label for="server-url">URL</label>
      <input id="server-url" type="url" required maxLength={2048} value={url} onInput={(e) => setUrl(e.currentTarget.value)} />
      <label for="server-headers">Headers, one "Name: value" per line</label>
      <textarea
        id="server-headers"
        rows={3}
        maxLength={16384}
        aria-describedby="server-headers-help"
        value={headers}
        onInput={(e) => setHeaders(e.currentTarget.value)}
      />
      <p id="server-headers-help" class="muted small">
        Values are stored encrypted and never shown again: ******** keeps the stored value. Moving the URL to another origin drops stored
        values unless new ones are given.
      </p>
      <ScopeMapEditor
        id="tool-scopes"
        legend="Tool scopes"
        item="Tool"
        rows={tools}
        onChange={setTools}
        known={Object.keys(server?.tool_pins ?? {})}
        help="A listed tool needs all of its scopes to be seen and called; any other needs mcp_servers:read to be seen, mcp_servers:write to be called."
      />
      <ToolRulesEditor
        rows={rules}
        errors={ruleErrors}
        onChange={(rows, moved) => {
          // Errors are placed by row: once rows move, they would point at the wrong one.
          if (moved) setRuleErrors({});
          setRules(rows);
        }}
        known={Object.keys(server?.tool_pins ?? {})}
      />
      <ScopeMapEditor
        id="resource-scopes"
        legend="Resource scopes"
        item="Resource"
        rows={resources}
        onChange={setResources}
        help="Upstream resource URI or URI template → every scope needed to list and read it (instead of mcp_servers:read)."
      />
      <ScopeMapEditor
        id="prompt-scopes"
        legend="Prompt scopes"
        item="Prompt"
        rows={prompts}
        onChange={setPrompts}
        help="Upstream prompt name → every scope needed to list and get it (instead of mcp_servers:read)."
      />
      <ErrorNote error={error} />
      <div class="buttons">
        <button type="submit" disabled={busy}>
          {server ? 'Save' : 'Add server'}
        </button>
        <button type="button" class="secondary" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}
