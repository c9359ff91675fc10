import { Config } from './config';

/** The console's page of one approval: under keygate's public URL when one is set, else a path (as the connect page). */
export function approvalPageUrl({ publicUrl }: Pick<Config, 'publicUrl'>): (approvalId: string) => string {
  const base = publicUrl ?? '';
  return (approvalId) => `${base}/console/#/approvals/${encodeURIComponent(approvalId)}`;
}
