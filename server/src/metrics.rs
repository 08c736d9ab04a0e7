//! `/metrics`: the server's counters in Prometheus' text format (through
//! the `prometheus-client` crate): requests answered by route and status,
//! a latency histogram, requests and connections in flight, and the tables
//! served per rule set.

use std::sync::atomic::AtomicI64;
use std::sync::Mutex;
use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::Registry;

/// A request's labels: its route (the matched path pattern, never the raw
/// path, so the label set stays small) and its status code.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RequestLabels {
    /// `/api/{rules}`, `/api/{rules}/line`, ... or `other`.
    pub route: String,
    /// The HTTP status, e.g. `200`.
    pub status: String,
}

/// One rule set's label.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RulesLabel {
    /// The rule set's name.
    pub rules: String,
}

/// The server's metrics and their registry.
pub struct Metrics {
    registry: Mutex<Registry>,
    /// Requests answered (`morris_requests_total`).
    pub requests: Family<RequestLabels, Counter>,
    /// Seconds from a request's arrival to its answer's headers.
    pub latency: Histogram,
    /// Requests being answered now.
    pub in_flight: Gauge<i64, AtomicI64>,
    /// Connections open now.
    pub connections: Gauge<i64, AtomicI64>,
    /// Connections refused at the cap (`--max-connections`).
    pub refused_connections: Counter,
    /// Tables in each rule set's directory when it was opened.
    pub tables: Family<RulesLabel, Gauge<i64, AtomicI64>>,
}

impl Default for Metrics {
    fn default() -> Self {
        let mut registry = Registry::default();
        let requests = Family::<RequestLabels, Counter>::default();
        registry.register("morris_requests", "HTTP requests answered, by route and status", requests.clone());
        // 0.1 ms to about 3.3 s.
        let latency = Histogram::new(exponential_buckets(0.0001, 2.0, 16));
        registry.register("morris_request_duration_seconds", "Time to answer a request", latency.clone());
        let in_flight = Gauge::<i64, AtomicI64>::default();
        registry.register("morris_requests_in_flight", "Requests being answered", in_flight.clone());
        let connections = Gauge::<i64, AtomicI64>::default();
        registry.register("morris_connections_open", "Client connections open", connections.clone());
        let refused_connections = Counter::default();
        registry.register(
            "morris_connections_refused",
            "Connections refused at the connection cap",
            refused_connections.clone(),
        );
        let tables = Family::<RulesLabel, Gauge<i64, AtomicI64>>::default();
        registry.register("morris_tables_served", "Tables in each rule set's directory", tables.clone());
        Metrics {
            registry: Mutex::new(registry),
            requests,
            latency,
            in_flight,
            connections,
            refused_connections,
            tables,
        }
    }
}

impl Metrics {
    /// Counts one answered request.
    pub fn record(&self, route: &str, status: u16, elapsed: Duration) {
        self.requests.get_or_create(&RequestLabels { route: route.to_string(), status: status.to_string() }).inc();
        self.latency.observe(elapsed.as_secs_f64());
    }

    /// Every metric in Prometheus' text exposition format.
    pub fn encode(&self) -> String {
        let mut text = String::new();
        let registry = self.registry.lock().unwrap_or_else(|e| e.into_inner());
        // Writing into a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut text, &registry);
        text
    }
}
