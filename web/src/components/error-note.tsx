export function ErrorNote({ error }: { error: string | null }) {
  return error ? (
    <p class="error" role="alert">
      {error}
    </p>
  ) : null;
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
