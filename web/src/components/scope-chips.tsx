export function ScopeChips({ scopes }: { scopes: string[] }) {
  if (scopes.length === 0) return <span class="chip chip-full">full access</span>;
  return (
    <ul class="chips" aria-label="Scopes">
      {scopes.map((s) => (
        <li key={s} class={`chip ${s.endsWith(':write') ? 'chip-write' : ''}`}>
          {s}
        </li>
      ))}
    </ul>
  );
}
