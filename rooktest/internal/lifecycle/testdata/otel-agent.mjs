// An execute hook that is an agent instrumented with the OpenTelemetry JS SDK: it takes
// its parent from TRACEPARENT, records an invoke_agent span, a chat span with usage, a
// tool call that succeeds and one that fails, exports them with the OTLP/HTTP exporter
// (which reads OTEL_EXPORTER_OTLP_ENDPOINT), and replies without calls or usage.
// OTEL_JS_MODULES names the folder whose node_modules holds the SDK.
import { createRequire } from 'node:module';

const require = createRequire(process.env.OTEL_JS_MODULES + '/');
const api = require('@opentelemetry/api');
const { BasicTracerProvider, SimpleSpanProcessor } = require('@opentelemetry/sdk-trace-base');
const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http');
const { W3CTraceContextPropagator } = require('@opentelemetry/core');

for await (const _ of process.stdin) { /* the goal: this agent answers the same */ }

const exporter = new OTLPTraceExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const tracer = provider.getTracer('node-agent');
const parent = new W3CTraceContextPropagator().extract(api.ROOT_CONTEXT, { traceparent: process.env.TRACEPARENT }, api.defaultTextMapGetter);

const agent = tracer.startSpan('invoke_agent support', { attributes: { 'gen_ai.operation.name': 'invoke_agent' } }, parent);
const ctx = api.trace.setSpan(parent, agent);
tracer.startSpan('chat gpt-x', { attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.usage.input_tokens': 120, 'gen_ai.usage.output_tokens': 30 } }, ctx).end();
tracer.startSpan('execute_tool lookup_order', { attributes: {
  'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'lookup_order', 'gen_ai.tool.call.id': 'call-1',
  'gen_ai.tool.call.arguments': '{"order": "ORD-7"}', 'gen_ai.tool.call.result': '{"status": "shipped"}' } }, ctx).end();
const charge = tracer.startSpan('execute_tool charge_card', { attributes: {
  'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'charge_card', 'gen_ai.tool.call.arguments': '{"amount": 40}' } }, ctx);
charge.setStatus({ code: api.SpanStatusCode.ERROR, message: 'card declined' });
charge.end();
agent.end();
await provider.forceFlush();
await provider.shutdown();
process.stdout.write(JSON.stringify({ output: 'your order ORD-7 has shipped; I could not charge the card', conversation: 'conv-1' }) + '\n');
