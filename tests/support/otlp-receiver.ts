import http from 'node:http';
import { AddressInfo } from 'node:net';
import path from 'node:path';
import protobuf from 'protobufjs';

/** A span as the receiver decoded it: ids in hex, attributes as plain values. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, unknown>;
  /** Every string the span holds (name, attributes, events, links, status, its resource), to look for secrets in. */
  texts: string[];
}

export interface OtlpReceiver {
  /** The base URL, for OTEL_EXPORTER_OTLP_ENDPOINT (the exporter appends /v1/traces). */
  url: string;
  spans: ReceivedSpan[];
  /** Export requests received. */
  exports: number;
  stop(): Promise<void>;
}

const root = protobuf.loadSync(path.join(__dirname, 'otlp-trace.proto'));
const ExportRequest = root.lookupType('otlp.ExportTraceServiceRequest');

/** An OTLP/HTTP trace receiver (application/x-protobuf) that keeps every span it is sent. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const receiver = { url: '', spans: [] as ReceivedSpan[], exports: 0, stop: async (): Promise<void> => undefined };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.url === '/v1/traces' && req.headers['content-type'] === 'application/x-protobuf') {
        receiver.exports += 1;
        receiver.spans.push(...decode(Buffer.concat(chunks)));
      }
      res.writeHead(200, { 'Content-Type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  receiver.stop = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return receiver;
}

function decode(body: Buffer): ReceivedSpan[] {
  const request = ExportRequest.toObject(ExportRequest.decode(body), { longs: String, bytes: Buffer, defaults: true, oneofs: true }) as {
    resourceSpans: { resource?: { attributes: KeyValue[] }; scopeSpans: { spans: RawSpan[] }[] }[];
  };
  return request.resourceSpans.flatMap(({ resource, scopeSpans }) => {
    const resourceTexts = stringsIn(resource ?? {});
    return scopeSpans.flatMap(({ spans }) =>
      spans.map((span) => ({
        traceId: span.traceId.toString('hex'),
        spanId: span.spanId.toString('hex'),
        parentSpanId: span.parentSpanId.toString('hex'),
        name: span.name,
        kind: span.kind,
        attributes: Object.fromEntries(span.attributes.map(({ key, value }) => [key, valueOf(value)])),
        texts: [...stringsIn({ ...span, traceId: '', spanId: '', parentSpanId: '' }), ...resourceTexts],
      })),
    );
  });
}

interface KeyValue {
  key: string;
  value: Record<string, unknown>;
}
interface RawSpan {
  traceId: Buffer;
  spanId: Buffer;
  parentSpanId: Buffer;
  name: string;
  kind: number;
  attributes: KeyValue[];
}

function valueOf(value: Record<string, unknown> | undefined): unknown {
  // With oneofs, `value` names the field the AnyValue holds.
  const field = value?.value;
  return typeof field === 'string' ? value![field] : undefined;
}

function stringsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Buffer.isBuffer(value)) return [value.toString('utf8')];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (typeof value === 'object' && value !== null) return Object.values(value).flatMap(stringsIn);
  return [];
}
