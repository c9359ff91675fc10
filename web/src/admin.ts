import { useEffect, useState } from 'preact/hooks';
import { api } from './api';

/** A user id no one signs in as: listing its servers is a documented admin-only act (docs/mcp-gateway.md, /api/v1/mcp-servers). */
const NOBODY = '00000000-0000-0000-0000-000000000000';

/**
 * Whether the API treats the signed-in user as an admin, asked of the API itself: only an admin may name
 * another user (`?user_id=`), anyone else gets 403. The console hides admin screens on `false`, nothing
 * more: every admin change is still decided by the API, which answers a forged UI with 403.
 * `null` while the answer is on its way; any failure, 403 or another, counts as not an admin.
 */
export function useIsAdmin(sub: string): boolean | null {
  const [admin, setAdmin] = useState<boolean | null>(null);
  useEffect(() => {
    let live = true;
    setAdmin(sub ? null : false);
    if (!sub) return;
    api('GET', `/mcp-servers?user_id=${NOBODY}&limit=1`).then(
      () => live && setAdmin(true),
      () => live && setAdmin(false),
    );
    return () => {
      live = false;
    };
  }, [sub]);
  return admin;
}
