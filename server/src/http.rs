//! The HTTP manners around the API of [`crate::api`]: load shedding (503
//! `overloaded` with `Retry-After` past the in-flight limit and its
//! queue), request and body timeouts, every error as JSON, `ETag` and
//! `Cache-Control` on API answers (they depend only on the database),
//! gzip/brotli when asked, CORS, security headers, `/healthz`, `/metrics`
//! and the access log. The middleware is tower-http's and tower's where they
//! have it; what is ours is the JSON shape of errors, the ETag and the log
//! line.

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::error_handling::HandleErrorLayer;
use axum::extract::{MatchedPath, Request, State};
use axum::http::header::{self, HeaderValue};
use axum::http::{Method, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use tower::ServiceBuilder;
use tower_http::compression::CompressionLayer;
use tower_http::cors::{AllowOrigin, CorsLayer};
use tower_http::set_header::SetResponseHeaderLayer;
use tower_http::timeout::{RequestBodyTimeoutLayer, TimeoutLayer};

use crate::api::{self, ApiError};
use crate::limits::{Limits, LogFormat};
use crate::metrics::Metrics;
use crate::served::Catalog;

/// The page's Content-Security-Policy: everything from this server only
/// (the board's script and style are inline in its one page).
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self' 'unsafe-inline'; \
     style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'";

/// `Cache-Control` of API answers: they change only when the database
/// does.
pub const API_CACHE_CONTROL: &str = "public, max-age=3600";

/// The largest error body read back to put into a JSON error, bytes.
const ERROR_BODY_BYTES: usize = 4096;

/// The whole application: the API, the board, `/healthz` and `/metrics`,
/// with every layer of this module, for `catalog` under `limits`.
pub fn app(catalog: Arc<Catalog>, metrics: Arc<Metrics>, limits: &Limits) -> Router {
    for served in catalog.all() {
        metrics
            .tables
            .get_or_create(&crate::metrics::RulesLabel { rules: served.rules().name().to_string() })
            .set(served.sectors.len() as i64);
    }
    let waiting = catalog.max_in_flight() + limits.max_queue;
    // One limit for every route of the API (a per-route limit would let
    // each route fill its own), shed rather than queued past it.
    let api = api::router(catalog).layer(
        ServiceBuilder::new()
            .layer(HandleErrorLayer::new(|_: tower::BoxError| async { overloaded() }))
            .load_shed()
            .layer(tower::limit::GlobalConcurrencyLimitLayer::new(waiting.max(1))),
    );
    let ops = Router::new()
        .route("/healthz", get(|| async { Json(serde_json::json!({ "status": "ok" })) }))
        .route("/metrics", get(metrics_text))
        .with_state(metrics.clone());
    Router::new()
        .merge(api)
        .merge(ops)
        .layer(TimeoutLayer::with_status_code(StatusCode::SERVICE_UNAVAILABLE, limits.request_timeout))
        .layer(RequestBodyTimeoutLayer::new(limits.body_timeout))
        .layer(middleware::from_fn(json_errors))
        .layer(middleware::from_fn(etag))
        .layer(CompressionLayer::new())
        .layer(cors(limits))
        .layer(SetResponseHeaderLayer::if_not_present(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(CONTENT_SECURITY_POLICY),
        ))
        .layer(SetResponseHeaderLayer::overriding(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff")))
        .layer(SetResponseHeaderLayer::overriding(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer")))
        .layer(middleware::from_fn_with_state((metrics, limits.log), observe))
}

/// 503 `overloaded` with `Retry-After: 1`: more requests than the
/// in-flight limit and its queue.
fn overloaded() -> Response {
    let mut r = ApiError::new(
        StatusCode::SERVICE_UNAVAILABLE,
        "overloaded",
        "the server is answering as many requests as it can; try again in a second",
    )
    .into_response();
    r.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    r
}

/// CORS: GET and POST (a review) from the configured origins, or any.
fn cors(limits: &Limits) -> CorsLayer {
    let origins = if limits.cors_origins.is_empty() {
        AllowOrigin::any()
    } else {
        AllowOrigin::list(limits.cors_origins.iter().filter_map(|o| HeaderValue::from_str(o).ok()))
    };
    CorsLayer::new()
        .allow_origin(origins)
        .allow_methods([Method::GET, Method::POST, Method::OPTIONS])
        .allow_headers([header::CONTENT_TYPE, header::IF_NONE_MATCH])
        .expose_headers([header::ETAG, header::RETRY_AFTER])
        .max_age(Duration::from_secs(86_400))
}

async fn metrics_text(State(metrics): State<Arc<Metrics>>) -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "application/openmetrics-text; version=1.0.0; charset=utf-8")], metrics.encode())
}

/// An error answer that is not JSON yet (axum's 405, tower-http's 413 and
/// timeouts) as `{"error": code, "message": ...}`; JSON answers pass.
async fn json_errors(req: Request, next: Next) -> Response {
    let response = next.run(req).await;
    let status = response.status();
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if status.as_u16() < 400 || is_json {
        return response;
    }
    let (parts, body) = response.into_parts();
    let text = axum::body::to_bytes(body, ERROR_BODY_BYTES).await.unwrap_or_default();
    let text = String::from_utf8_lossy(&text);
    let (code, message) = match status {
        StatusCode::METHOD_NOT_ALLOWED => ("method_not_allowed", "this method is not allowed here".to_string()),
        StatusCode::PAYLOAD_TOO_LARGE | StatusCode::URI_TOO_LONG | StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE => {
            ("too_long", format!("the request is too large ({})", status.canonical_reason().unwrap_or("")))
        }
        StatusCode::REQUEST_TIMEOUT | StatusCode::SERVICE_UNAVAILABLE => {
            ("timeout", "the request took too long; try again".to_string())
        }
        _ if text.trim().is_empty() => ("http_error", status.canonical_reason().unwrap_or("error").to_string()),
        _ => ("http_error", text.trim().chars().take(200).collect()),
    };
    let mut answer = ApiError::new(status, code, message).into_response();
    for (name, value) in parts.headers.iter() {
        if name != header::CONTENT_TYPE && name != header::CONTENT_LENGTH {
            answer.headers_mut().insert(name.clone(), value.clone());
        }
    }
    answer
}

/// `ETag` (the xxh3 of the answer) and `Cache-Control` on successful API
/// GETs, and 304 when the client's `If-None-Match` names the same answer.
async fn etag(req: Request, next: Next) -> Response {
    let is_api_get = req.method() == Method::GET && req.uri().path().starts_with("/api/");
    let if_none_match = req.headers().get(header::IF_NONE_MATCH).cloned();
    let response = next.run(req).await;
    if !is_api_get || response.status() != StatusCode::OK {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, usize::MAX).await else {
        return ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", "the answer could not be read")
            .into_response();
    };
    let tag = format!("\"{:016x}\"", xxhash_rust::xxh3::xxh3_64(&bytes));
    let tag = HeaderValue::from_str(&tag).unwrap_or(HeaderValue::from_static("\"\""));
    parts.headers.insert(header::ETAG, tag.clone());
    parts.headers.insert(header::CACHE_CONTROL, HeaderValue::from_static(API_CACHE_CONTROL));
    let matches = if_none_match
        .as_ref()
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == tag.to_str().unwrap_or("") || t.trim() == "*"));
    if matches {
        parts.status = StatusCode::NOT_MODIFIED;
        parts.headers.remove(header::CONTENT_LENGTH);
        return Response::from_parts(parts, Body::empty());
    }
    Response::from_parts(parts, Body::from(bytes))
}

/// Counts every request in the metrics and writes the access log line.
async fn observe(
    State((metrics, log)): State<(Arc<Metrics>, Option<LogFormat>)>,
    req: Request,
    next: Next,
) -> Response {
    let start = Instant::now();
    let route = req.extensions().get::<MatchedPath>().map_or("other", |p| p.as_str()).to_string();
    let method = req.method().clone();
    let uri: String = req.uri().to_string().chars().take(200).collect();
    metrics.in_flight.inc();
    let response = next.run(req).await;
    metrics.in_flight.dec();
    let elapsed = start.elapsed();
    let status = response.status().as_u16();
    metrics.record(&route, status, elapsed);
    let ms = elapsed.as_secs_f64() * 1000.0;
    match log {
        Some(LogFormat::Text) => tracing::info!("{method} {uri} {status} {ms:.2} ms"),
        Some(LogFormat::Json) => {
            tracing::info!(method = %method, uri = %uri, route = %route, status, ms = format!("{ms:.3}"), "request")
        }
        None => {}
    }
    response
}
