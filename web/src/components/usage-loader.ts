import { useEffect, useState } from 'preact/hooks';
import { UsageReport } from '../api';
import { loadUsage, RangeId } from '../usage';
import { messageOf } from './error-note';

/**
 * Usage reports for one range, one per query, loaded together; `reports` is null while loading, and while
 * `queries` is null (not known yet). A later range's answers replace an earlier one's even if those arrive last.
 */
export function useUsageReports(
  range: RangeId,
  queries: Record<string, string>[] | null,
): { reports: UsageReport[] | null; error: string | null } {
  const [reports, setReports] = useState<UsageReport[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const wanted = JSON.stringify([range, queries]);
  useEffect(() => {
    let live = true;
    setReports(null);
    setError(null);
    if (!queries) return;
    Promise.all(queries.map((q) => loadUsage(range, q))).then(
      (answers) => live && setReports(answers),
      (e) => live && setError(messageOf(e)),
    );
    return () => {
      live = false;
    };
  }, [wanted]);
  return { reports, error };
}
