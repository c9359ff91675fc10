import { useState } from 'preact/hooks';
import { api, ExplainStep, KeyTool, ToolExplanation } from '../api';
import { ErrorNote, messageOf } from './error-note';

/** Unknown steps (a newer API) show by their own name. */
const STEP_NAMES: Record<string, string> = {
  key: 'Key',
  tool: 'Tool',
  scope: 'Scope',
  pin: 'Pinned definition',
  connection: 'Connection',
  rules: 'Rules',
  rate_limit: 'Rate limit',
  quota: 'Quota',
  approval: 'Approval',
};

/** Words, so the outcome never rests on colour alone. */
const outcomeText = (outcome: string) => outcome.replace(/_/g, ' ');

/** Arguments as typed: empty is none, anything else must be a JSON object. */
function parseArguments(text: string): { value?: Record<string, unknown>; error?: string } {
  if (!text.trim()) return {};
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      return { error: 'Arguments must be a JSON object, like {"path": "/tmp"}.' };
    return { value: value as Record<string, unknown> };
  } catch (e) {
    return { error: `Arguments are not valid JSON: ${messageOf(e)}` };
  }
}

/** "Why can't this key use …?": POST /api/v1/authz/explain for a tool and optional arguments, every step in order. */
export function ExplainForm({ id, tools }: { id: string; tools: KeyTool[] }) {
  const [tool, setTool] = useState('');
  const [args, setArgs] = useState('');
  const [argsError, setArgsError] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [answer, setAnswer] = useState<ToolExplanation | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = (event: Event) => {
    event.preventDefault();
    const parsed = parseArguments(args);
    setArgsError(parsed.error ?? null);
    if (parsed.error) return;
    setBusy(true);
    setError(null);
    const body = { key_id: id, tool: tool.trim(), ...(parsed.value ? { arguments: parsed.value } : {}) };
    api<ToolExplanation>('POST', '/authz/explain', body).then(
      ({ data }) => {
        setBusy(false);
        setAnswer(data);
      },
      (e) => {
        setBusy(false);
        setAnswer(null);
        setError(messageOf(e));
      },
    );
  };
  return (
    <>
      <form class="form card" onSubmit={submit} aria-label="Explain a tool call">
        <datalist id="explain-tools">
          {tools.map((t) => (
            <option key={t.name} value={t.name} />
          ))}
        </datalist>
        <label for="explain-tool">Tool, as a client calls it on /mcp</label>
        <input
          id="explain-tool"
          required
          maxLength={512}
          list="explain-tools"
          placeholder="projects or server__tool"
          value={tool}
          onInput={(e) => setTool(e.currentTarget.value)}
        />
        <label for="explain-args">Arguments (JSON object, optional)</label>
        <textarea
          id="explain-args"
          rows={3}
          class="mono"
          aria-invalid={argsError ? 'true' : undefined}
          aria-describedby={argsError ? 'explain-args-error' : 'explain-args-help'}
          value={args}
          onInput={(e) => setArgs(e.currentTarget.value)}
        />
        {argsError ? (
          <p id="explain-args-error" class="error" role="alert">
            {argsError}
          </p>
        ) : (
          <p id="explain-args-help" class="muted small">
            Left empty, a rule that reads the arguments answers "needs arguments".
          </p>
        )}
        <ErrorNote error={error} />
        <div class="buttons">
          <button type="submit" disabled={busy}>
            Explain
          </button>
        </div>
      </form>
      {answer && <Explanation answer={answer} />}
    </>
  );
}

function Explanation({ answer }: { answer: ToolExplanation }) {
  return (
    <section class="card explanation" aria-labelledby="explain-result">
      <h3 id="explain-result">
        <code>{answer.tool}</code>: <span class={`outcome outcome-${answer.decision}`}>{outcomeText(answer.decision)}</span>
      </h3>
      {answer.reason && <p>{answer.reason}</p>}
      <ol class="steps" aria-label="Steps, in the order a call meets them">
        {answer.steps.map((step) => (
          <li key={step.step}>
            <strong>{STEP_NAMES[step.step] ?? step.step}</strong>:{' '}
            <span class={`outcome outcome-${step.outcome}`}>{outcomeText(step.outcome)}</span>
            <span class="step-detail"> — {step.detail}</span>
            <StepFacts step={step} />
          </li>
        ))}
      </ol>
    </section>
  );
}

function StepFacts({ step }: { step: ExplainStep }) {
  const list = (values: string[] | undefined) => (values && values.length ? values.join(', ') : 'none');
  return (
    <>
      {step.step === 'scope' && step.required && (
        <p class="muted small">
          Required: {list(step.required)}. Granted: {list(step.granted)}. Missing: {list(step.missing)}.
        </p>
      )}
      {step.connect_url && (
        <p>
          <a href={step.connect_url}>Connect to this server</a>
        </p>
      )}
      {step.rules && step.rules.length > 0 && (
        <ol class="rules" start={0}>
          {step.rules.map((rule) => (
            <li key={rule.index}>
              Rule {rule.index} ({rule.effect.replace(/_/g, ' ')}): "{rule.message}" —{' '}
              <span class={`outcome outcome-${rule.outcome}`}>{outcomeText(rule.outcome)}</span>
              {rule.error && <span class="mono small"> ({rule.error})</span>}
            </li>
          ))}
        </ol>
      )}
      {step.remaining !== undefined && <p class="muted small">Remaining: {step.remaining}</p>}
    </>
  );
}
