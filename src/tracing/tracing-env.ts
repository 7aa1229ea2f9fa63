/**
 * Whether the environment asks for traces (docs/operations.md#traces): an OTLP endpoint
 * (`OTEL_EXPORTER_OTLP_ENDPOINT`, or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) or a traces
 * exporter (`OTEL_TRACES_EXPORTER`, e.g. `console`) is set, `OTEL_TRACES_EXPORTER` is not
 * `none` and `OTEL_SDK_DISABLED` is not `true`. Anything else: tracing stays off and no
 * OpenTelemetry code is loaded. Pure.
 */
export function tracingRequested(env: NodeJS.ProcessEnv): boolean {
  const set = (name: string) => (env[name] ?? '').trim() !== '';
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return false;
  const exporter = (env.OTEL_TRACES_EXPORTER ?? '').trim().toLowerCase();
  if (exporter === 'none') return false;
  return (
    exporter !== '' ||
    set('OTEL_EXPORTER_OTLP_ENDPOINT') ||
    set('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT')
  );
}
