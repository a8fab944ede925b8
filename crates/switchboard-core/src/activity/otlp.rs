//! OpenTelemetry export (`settings.otlpEndpoint`): each recorded call becomes
//! a span, and the hub keeps three metrics per server, all sent over
//! OTLP/HTTP with JSON bodies to `<endpoint>/v1/traces` and
//! `<endpoint>/v1/metrics`.
//!
//! Spans are made by the activity writer from finished records (never on the
//! call path), with the call's own start and end times. They carry the method,
//! the tool or prompt name or resource URI, the server, the outcome, the
//! client, the session and the endpoint, and the (redacted) error as the
//! status: never argument or result values. Metrics: `switchboard.calls`
//! (counter, by `server` and `outcome`), `switchboard.call.errors` (counter,
//! by `server`), `switchboard.call.duration` (histogram in ms, by `server`).
//!
//! The SDK batches in its own threads (spans every 5 s, metrics every 60 s;
//! the standard `OTEL_BSP_SCHEDULE_DELAY` and `OTEL_METRIC_EXPORT_INTERVAL`
//! variables change that) and sends through [`TokioHttp`], which runs each
//! request on the hub's runtime with its reqwest client. A collector that is
//! down costs a failed request per batch, logged by the SDK; calls never wait.

use std::time::{Duration, SystemTime};

use opentelemetry::KeyValue;
use opentelemetry::metrics::{Counter, Histogram, MeterProvider as _};
use opentelemetry::trace::{Span as _, SpanKind, Status, Tracer as _, TracerProvider as _};
use opentelemetry_http::{Bytes, HttpClient, HttpError, Request, Response};
use opentelemetry_otlp::{Protocol, WithExportConfig, WithHttpConfig};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::metrics::SdkMeterProvider;
use opentelemetry_sdk::trace::{SdkTracer, SdkTracerProvider};
use switchboard_api::{ActivityEntry, ActivityOutcome};

/// How long one export request may take.
const EXPORT_TIMEOUT: Duration = Duration::from_secs(10);

/// Sends the SDK's requests with reqwest on the hub's tokio runtime: the
/// SDK's exporter threads are not tokio threads, so each request is spawned
/// onto the runtime and its result awaited from there.
#[derive(Debug, Clone)]
struct TokioHttp {
    client: reqwest::Client,
    runtime: tokio::runtime::Handle,
}

#[async_trait::async_trait]
impl HttpClient for TokioHttp {
    async fn send_bytes(&self, request: Request<Bytes>) -> Result<Response<Bytes>, HttpError> {
        let client = self.client.clone();
        let task = self.runtime.spawn(async move {
            let (parts, body) = request.into_parts();
            let url = parts.uri.to_string();
            let mut builder = client
                .request(parts.method, url)
                .timeout(EXPORT_TIMEOUT)
                .body(body);
            for (name, value) in &parts.headers {
                builder = builder.header(name, value);
            }
            let answer = builder.send().await?;
            let mut response = Response::builder().status(answer.status());
            for (name, value) in answer.headers() {
                response = response.header(name, value);
            }
            let body = answer.bytes().await?;
            Ok::<_, HttpError>(response.body(body)?)
        });
        task.await?
    }
}

/// The exporters and instruments of one hub.
pub(super) struct Otlp {
    tracer_provider: SdkTracerProvider,
    meter_provider: SdkMeterProvider,
    tracer: SdkTracer,
    calls: Counter<u64>,
    errors: Counter<u64>,
    duration: Histogram<f64>,
}

impl Otlp {
    /// Sets up export to `endpoint` (a base URL such as
    /// `http://127.0.0.1:4318`); must run inside the hub's runtime.
    pub(super) fn start(endpoint: &str) -> Result<Self, String> {
        let http = TokioHttp {
            client: reqwest::Client::builder()
                .build()
                .map_err(|err| format!("could not make an HTTP client: {err}"))?,
            runtime: tokio::runtime::Handle::current(),
        };
        let resource = Resource::builder()
            .with_service_name("switchboard")
            .with_attribute(KeyValue::new("service.version", env!("CARGO_PKG_VERSION")))
            .build();
        let spans = opentelemetry_otlp::SpanExporter::builder()
            .with_http()
            .with_http_client(http.clone())
            .with_protocol(Protocol::HttpJson)
            .with_endpoint(format!("{endpoint}/v1/traces"))
            .build()
            .map_err(|err| format!("could not set up the span export: {err}"))?;
        let metrics = opentelemetry_otlp::MetricExporter::builder()
            .with_http()
            .with_http_client(http)
            .with_protocol(Protocol::HttpJson)
            .with_endpoint(format!("{endpoint}/v1/metrics"))
            .build()
            .map_err(|err| format!("could not set up the metrics export: {err}"))?;
        let tracer_provider = SdkTracerProvider::builder()
            .with_batch_exporter(spans)
            .with_resource(resource.clone())
            .build();
        let meter_provider = SdkMeterProvider::builder()
            .with_periodic_exporter(metrics)
            .with_resource(resource)
            .build();
        let tracer = tracer_provider.tracer("switchboard");
        let meter = meter_provider.meter("switchboard");
        Ok(Self {
            calls: meter
                .u64_counter("switchboard.calls")
                .with_description("Calls through the hub (tools/call, prompts/get, resources/read)")
                .build(),
            errors: meter
                .u64_counter("switchboard.call.errors")
                .with_description("Calls that did not end ok (error, cancelled, timeout)")
                .build(),
            duration: meter
                .f64_histogram("switchboard.call.duration")
                .with_unit("ms")
                .with_description("How long calls took")
                .build(),
            tracer_provider,
            meter_provider,
            tracer,
        })
    }

    /// Exports one finished call (`at`: when it arrived).
    pub(super) fn export(&self, entry: &ActivityEntry, at: SystemTime) {
        let server = entry.server.clone().unwrap_or_else(|| "none".to_string());
        let outcome = entry.outcome.as_str();
        let mut attributes = vec![
            KeyValue::new("mcp.method.name", entry.method.clone()),
            KeyValue::new("switchboard.server", server.clone()),
            KeyValue::new("switchboard.outcome", outcome),
            KeyValue::new("switchboard.endpoint", entry.endpoint.clone()),
        ];
        let target = match entry.method.as_str() {
            "tools/call" => "gen_ai.tool.name",
            "prompts/get" => "gen_ai.prompt.name",
            _ => "mcp.resource.uri",
        };
        attributes.push(KeyValue::new(target, entry.name.clone()));
        if let Some(client) = &entry.client {
            attributes.push(KeyValue::new("switchboard.client", client.clone()));
        }
        if let Some(session) = &entry.session {
            attributes.push(KeyValue::new("mcp.session.id", session.clone()));
        }
        let mut span = self
            .tracer
            .span_builder(format!("{} {}", entry.method, entry.name))
            .with_kind(SpanKind::Server)
            .with_start_time(at)
            .with_attributes(attributes)
            .start(&self.tracer);
        if entry.outcome != ActivityOutcome::Ok {
            let text = entry.error.clone().unwrap_or_else(|| outcome.to_string());
            span.set_attribute(KeyValue::new("error.type", outcome));
            span.set_status(Status::error(text));
        }
        span.end_with_timestamp(at + Duration::from_secs_f64(entry.duration_ms.max(0.0) / 1000.0));

        let by_server = [KeyValue::new("server", server)];
        self.calls.add(
            1,
            &[by_server[0].clone(), KeyValue::new("outcome", outcome)],
        );
        if entry.outcome != ActivityOutcome::Ok {
            self.errors.add(1, &by_server);
        }
        self.duration.record(entry.duration_ms, &by_server);
    }

    /// Sends what is pending and stops the exporters' threads (blocking: run
    /// it off the runtime's threads, whose requests it waits for).
    pub(super) fn shutdown(self) {
        if let Err(err) = self.tracer_provider.shutdown() {
            tracing::debug!(error = %err, "span export did not shut down cleanly");
        }
        if let Err(err) = self.meter_provider.shutdown() {
            tracing::debug!(error = %err, "metrics export did not shut down cleanly");
        }
    }
}
