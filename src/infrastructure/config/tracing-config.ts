/**
 * Whether to export traces: an OTLP endpoint is set (for everything, or for
 * traces) and the SDK is not disabled. The OpenTelemetry SDK reads every other
 * OTEL_* variable itself (protocol, headers, sampler, service name, resource),
 * so this reads only what decides whether to load it at all. Kept apart from
 * config.ts, which requires nothing that express or pg would need patched
 * first, but which main.ts must not load before tracing starts either.
 */
export function tracingEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  const endpoint = (env.OTEL_EXPORTER_OTLP_ENDPOINT ?? '').trim() !== '' || (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? '').trim() !== '';
  return endpoint && (env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() !== 'true';
}
