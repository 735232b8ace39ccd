// An agent service instrumented with the OpenTelemetry JS SDK, started on its own: one
// exporter for the process (OTLP/HTTP, to OTEL_EXPORTER_OTLP_ENDPOINT) behind a batch span
// processor on its default schedule (every 5 s, unless OTEL_BSP_SCHEDULE_DELAY says), and
// no flush after a request. Each POST /chat takes its trace context from the traceparent
// and tracestate headers, records an invoke_agent span and a lookup_order call under it,
// and answers {"output": ...} at once: its spans go out on the schedule, after the answer.
// It prints "listening on <port>" once it accepts connections. OTEL_JS_MODULES names the
// folder whose node_modules holds the SDK.
import { createRequire } from 'node:module';
import http from 'node:http';

const require = createRequire(process.env.OTEL_JS_MODULES + '/');
const api = require('@opentelemetry/api');
const { BasicTracerProvider, BatchSpanProcessor } = require('@opentelemetry/sdk-trace-base');
const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http');
const { W3CTraceContextPropagator } = require('@opentelemetry/core');

const provider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())] });
const tracer = provider.getTracer('node-service');
const propagator = new W3CTraceContextPropagator();

const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const parent = propagator.extract(api.ROOT_CONTEXT, req.headers, api.defaultTextMapGetter);
    const agent = tracer.startSpan('invoke_agent support', { attributes: { 'gen_ai.operation.name': 'invoke_agent' } }, parent);
    tracer.startSpan('execute_tool lookup_order', { attributes: {
      'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'lookup_order',
      'gen_ai.tool.call.arguments': '{"order": "ORD-7"}' } }, api.trace.setSpan(parent, agent)).end();
    agent.end();
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ output: 'order ORD-7 has shipped' }));
  });
});
server.listen(0, '127.0.0.1', () => console.log('listening on ' + server.address().port));
