import { useId } from 'preact/hooks';
import { RangeId, RANGES } from '../usage';

export function RangePicker({ value, onChange }: { value: RangeId; onChange: (range: RangeId) => void }) {
  const id = useId();
  return (
    <div class="inline">
      <label for={id}>Range</label>
      <select id={id} value={value} onChange={(e) => onChange(e.currentTarget.value as RangeId)}>
        {RANGES.map((r) => (
          <option key={r.id} value={r.id}>
            {r.label} (by {r.bucket})
          </option>
        ))}
      </select>
    </div>
  );
}
