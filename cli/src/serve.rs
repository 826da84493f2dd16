//! `pat issuer serve`, `pat issuer rotate`, `pat origin serve` and `pat
//! fetch`: the services of the `pat-http` crate behind the `serve` feature.

use std::io::Write as _;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::{Args, Subcommand, ValueEnum};
use pat::wire::extension_set::ExtensionEntry;
use pat_http::metrics::Metrics;
use pat_http::pool::{Pool, PoolConfig};
use pat_http::server::Limits;
use pat_http::{BoxError, client, issuer, keys, negotiation, origin, replay, server, tls, unix_now};

#[derive(Subcommand)]
pub(crate) enum IssuerCommand {
    /// Serve the issuer directory and issue tokens (keys made on first start).
    Serve(Box<IssuerServe>),
    /// Add the next key of every type, valid from a later time.
    Rotate(IssuerRotate),
}

#[derive(Args)]
pub(crate) struct IssuerServe {
    /// Address to listen on (port 0 picks one; the chosen one is printed).
    #[arg(long)]
    listen: SocketAddr,
    /// The issuer name clients see (host, or host:port).
    #[arg(long)]
    name: String,
    /// Token types to issue (decimal, or hex as 0xDA7A; type 0xDA7A makes a
    /// safe-prime RSA key on first start, which takes seconds; type 0xE5AC,
    /// ARC, issues credentials on application/private-credential-request).
    #[arg(long, value_delimiter = ',', default_value = "1,2,5", value_parser = parse_token_type)]
    token_types: Vec<u16>,
    /// Folder of the keys (created if absent).
    #[arg(long)]
    state: PathBuf,
    /// TLS certificate chain (PEM); serves HTTPS with --tls-key.
    #[arg(long, requires = "tls_key")]
    tls_cert: Option<PathBuf>,
    /// TLS private key (PEM).
    #[arg(long, requires = "tls_cert")]
    tls_key: Option<PathBuf>,
    /// The directory's issuer-request-uri (default: SCHEME://NAME/token-request).
    #[arg(long)]
    request_uri: Option<String>,
    /// Lifetime of keys made on first start, in seconds.
    #[arg(long, default_value_t = keys::DEFAULT_LIFETIME)]
    lifetime: u64,
    /// Types 0xDA7A and 0xDA7B: the only extension types issued (decimal or 0x hex,
    /// comma-separated; default: any well-formed list). Others get 400.
    #[arg(long, value_delimiter = ',', value_parser = parse_extension_type)]
    allowed_extensions: Option<Vec<u16>>,
    #[command(flatten)]
    service: ServiceArgs,
}

/// What every service takes: its bounds, its operator's routes, its logs.
#[derive(Args)]
pub(crate) struct ServiceArgs {
    /// Seconds to receive a request's head; also how long an idle
    /// keep-alive connection is kept.
    #[arg(long, default_value_t = 20)]
    header_timeout: u64,
    /// Seconds to handle a request, its body included (408 after).
    #[arg(long, default_value_t = 10)]
    request_timeout: u64,
    /// The largest request head in bytes (431 above; at least 8192).
    #[arg(long, default_value_t = 16 * 1024)]
    max_header_bytes: usize,
    /// Connections held at once; one more is closed at once.
    #[arg(long, default_value_t = 1024)]
    max_connections: usize,
    /// Seconds that requests in flight may take to finish after SIGTERM.
    #[arg(long, default_value_t = 10)]
    shutdown_grace: u64,
    /// Threads for the cryptography of requests (default: one per core).
    #[arg(long)]
    workers: Option<usize>,
    /// Requests waiting for a worker beyond those running (default: 32 per
    /// worker); one more gets 503 with Retry-After.
    #[arg(long)]
    queue: Option<usize>,
    /// Milliseconds a request may wait for a worker before it gets 503.
    #[arg(long, default_value_t = 250)]
    queue_wait_ms: u64,
    /// A browser origin allowed to call the service (CORS), such as
    /// https://app.example; `*` for any. Repeatable.
    #[arg(long = "cors-origin")]
    cors_origins: Vec<String>,
    /// Serve /healthz, /readyz and /metrics on this address instead of the
    /// service's own.
    #[arg(long)]
    admin_listen: Option<SocketAddr>,
    /// Log lines as text or as JSON objects (the level: RUST_LOG, default info).
    #[arg(long, value_enum, default_value_t = LogFormat::Text)]
    log_format: LogFormat,
}

/// How log lines are written (to stderr).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum LogFormat {
    /// One line of text per event.
    Text,
    /// One JSON object per event.
    Json,
}

impl ServiceArgs {
    fn limits(&self) -> Limits {
        Limits {
            header_timeout: Duration::from_secs(self.header_timeout.max(1)),
            request_timeout: Duration::from_secs(self.request_timeout.max(1)),
            max_header_bytes: self.max_header_bytes.max(8192),
            max_connections: self.max_connections.max(1),
            shutdown_grace: Duration::from_secs(self.shutdown_grace),
            cors_origins: self.cors_origins.clone(),
        }
    }

    fn pool(&self, metrics: &Arc<Metrics>) -> Pool {
        let defaults = PoolConfig::default();
        let workers = self.workers.unwrap_or(defaults.workers).max(1);
        let config = PoolConfig {
            workers,
            queue: self.queue.unwrap_or(32 * workers),
            queue_wait: Duration::from_millis(self.queue_wait_ms),
        };
        Pool::new(config, Arc::clone(metrics))
    }

    fn init_logs(&self) {
        use tracing_subscriber::EnvFilter;
        let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
        let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
        let builder = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).with_ansi(ansi);
        // A second initialisation (tests) is not an error worth stopping for.
        let _ = match self.log_format {
            LogFormat::Text => builder.try_init(),
            LogFormat::Json => builder.json().try_init(),
        };
    }
}

/// Serves a service's router (with `layered`'s bounds) and its operator's
/// routes (beside it, or on `--admin-listen`) until SIGTERM or SIGINT, then
/// drains; `on_shutdown` runs first (readiness goes 503).
#[allow(clippy::too_many_arguments)]
async fn run_service(
    what: &str,
    service_routes: axum::Router,
    admin_routes: axum::Router,
    route_of: server::RouteOf,
    listener: std::net::TcpListener,
    addr: SocketAddr,
    tls: Option<axum_server::tls_rustls::RustlsConfig>,
    args: &ServiceArgs,
    metrics: Arc<Metrics>,
    on_shutdown: impl FnOnce() + Send + 'static,
) -> Result<ExitCode, BoxError> {
    let limits = args.limits();
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    tokio::spawn(async move {
        server::termination().await;
        on_shutdown();
        let _ = stop_tx.send(true);
    });
    let stopped = |mut rx: tokio::sync::watch::Receiver<bool>| async move {
        let _ = rx.wait_for(|stop| *stop).await;
    };
    let main_routes = match args.admin_listen {
        Some(admin_addr) => {
            let (admin_listener, admin_bound) = pat_http::bind(admin_addr)?;
            let admin = server::layered(admin_routes, &Limits::default(), Arc::clone(&metrics), route_of)?;
            let (m, rx) = (Arc::clone(&metrics), stop_rx.clone());
            let admin_limits = Limits { cors_origins: Vec::new(), ..limits.clone() };
            tokio::spawn(async move {
                if let Err(e) = pat_http::serve_with(admin, admin_listener, None, &admin_limits, m, stopped(rx)).await {
                    tracing::error!(error = %e, "the admin listener failed");
                }
            });
            announce(&format!("{what} admin"), admin_bound, false);
            service_routes
        }
        None => admin_routes.merge(service_routes),
    };
    let router = server::layered(main_routes, &limits, Arc::clone(&metrics), route_of)?;
    announce(what, addr, tls.is_some());
    pat_http::serve_with(router, listener, tls, &limits, metrics, stopped(stop_rx)).await?;
    tracing::info!("{what}: stopped");
    Ok(ExitCode::SUCCESS)
}

/// A token or extension type: decimal, or hex with `0x`.
fn parse_token_type(s: &str) -> Result<u16, String> {
    let parsed = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) => u16::from_str_radix(hex, 16),
        None => s.parse::<u16>(),
    };
    parsed.map_err(|e| format!("`{s}`: {e}"))
}

/// An extension type (decimal or 0x hex). Type 0 is reserved
/// (draft-ietf-privacypass-auth-scheme-extensions-03 §3.1), so an origin
/// cannot ask for it and a client does not send it.
fn parse_extension_type(s: &str) -> Result<u16, String> {
    match parse_token_type(s)? {
        0 => Err(format!("`{s}`: extension type 0 is reserved")),
        ty => Ok(ty),
    }
}

/// One `--extension TYPE:HEX`: its type and data.
fn parse_extension(s: &str) -> Result<(u16, Vec<u8>), String> {
    let (ty, hex) = s.split_once(':').ok_or_else(|| format!("`{s}`: expected TYPE:HEX"))?;
    let ty = parse_extension_type(ty)?;
    if !hex.len().is_multiple_of(2) {
        return Err(format!("`{hex}`: an odd number of hex digits"));
    }
    let data = (0..hex.len())
        .step_by(2)
        .map(|i| hex.get(i..i + 2).and_then(|b| u8::from_str_radix(b, 16).ok()))
        .collect::<Option<Vec<u8>>>()
        .ok_or_else(|| format!("`{hex}`: not hex"))?;
    Ok((ty, data))
}

/// The Extensions list of `--extension` values, sorted by type (stable).
fn encode_extensions(list: Vec<(u16, Vec<u8>)>) -> Result<Vec<u8>, BoxError> {
    negotiation::encode_list(list)
}

/// The extension-set entries of `--require-extension` and
/// `--optional-extension`: the required types first, each list in the
/// order given.
fn extension_set(required: &[u16], optional: &[u16]) -> Vec<ExtensionEntry> {
    let required = required.iter().map(|&t| ExtensionEntry::required(t));
    required.chain(optional.iter().map(|&t| ExtensionEntry::optional(t))).collect()
}

#[derive(Args)]
pub(crate) struct IssuerRotate {
    /// The issuer's state folder.
    #[arg(long)]
    state: PathBuf,
    /// Seconds from now until the new keys' not-before.
    #[arg(long = "in", default_value_t = 86_400)]
    in_secs: u64,
    /// Lifetime of the new keys, in seconds.
    #[arg(long, default_value_t = keys::DEFAULT_LIFETIME)]
    lifetime: u64,
    /// Only these token types (default: every type the folder has).
    #[arg(long, value_delimiter = ',', value_parser = parse_token_type)]
    token_types: Option<Vec<u16>>,
}

#[derive(Subcommand)]
pub(crate) enum OriginCommand {
    /// Serve resources that need a token.
    Serve(Box<OriginServe>),
}

#[derive(Args)]
pub(crate) struct OriginServe {
    /// Address to listen on (port 0 picks one; the chosen one is printed).
    #[arg(long)]
    listen: SocketAddr,
    /// The issuer name written into challenges.
    #[arg(long)]
    issuer: String,
    /// Where the issuer directory is (default: https://ISSUER).
    #[arg(long)]
    issuer_url: Option<String>,
    /// The token type asked for (1, 2, 5, 0xDA7A, 0xDA7B or 0xE5AC; 0xDA7B
    /// and 0xE5AC, like 1 and 5, need --issuer-state: only the issuer's key
    /// verifies them; 0xE5AC needs --rate-limit).
    #[arg(long, value_parser = parse_token_type)]
    token_type: u16,
    /// Type 0xE5AC (ARC): the presentation limit N, sent as the challenge's
    /// rate-limit parameter (2 to 2^32): at most N tokens from one
    /// credential per challenge. It limits credentials, not clients: the
    /// issuer gives credentials to anyone and pat fetch obtains a new one
    /// after N, so it limits clients only where issuance is gated
    /// (attestation or authentication, which pat-http does not provide).
    /// The previous window's challenge is accepted too, so one credential
    /// can spend up to 2N tokens within one window (--max-age seconds).
    #[arg(long)]
    rate_limit: Option<u64>,
    /// Types 0xDA7A and 0xDA7B: the only extension types a redeemed token may carry
    /// (decimal or 0x hex, comma-separated; default: any). Type 0xE5AC does
    /// not start with it (its tokens carry no extensions).
    #[arg(long, value_delimiter = ',', value_parser = parse_extension_type)]
    allowed_extensions: Option<Vec<u16>>,
    /// Types 0xDA7A and 0xDA7B: an extension type every token must carry,
    /// announced as required in the challenge's extension-set parameter
    /// (draft-ietf-privacypass-auth-scheme-extensions-03 §4); a token
    /// without it gets 401 and a fresh challenge. Decimal or 0x hex;
    /// comma-separated or repeated.
    #[arg(long = "require-extension", value_delimiter = ',', value_parser = parse_extension_type)]
    require_extensions: Vec<u16>,
    /// Types 0xDA7A and 0xDA7B: an extension type announced as optional in
    /// the challenge's extension-set (clients may send it; nothing is
    /// enforced). Comma-separated or repeated.
    #[arg(long = "optional-extension", value_delimiter = ',', value_parser = parse_extension_type)]
    optional_extensions: Vec<u16>,
    /// Types 0xDA7A and 0xDA7B: an extension value offered to clients in the
    /// challenge's extensions parameter, TYPE:HEXDATA (repeatable; sorted by
    /// type). Clients use it only if they choose to.
    #[arg(long = "suggest-extension", value_parser = parse_extension)]
    suggest_extensions: Vec<(u16, Vec<u8>)>,
    /// Replay store in Redis (redis://HOST:PORT); in memory when omitted.
    /// A Redis Cluster: redis+cluster://HOST:PORT,HOST:PORT, or the option
    /// repeated with one seed node each (a single seed needs
    /// redis+cluster://: one redis:// URL is a single server).
    #[arg(long)]
    redis: Vec<String>,
    /// Redis replicas that must acknowledge a spend (WAIT) before the token
    /// is accepted; 0 answers when the primary has recorded it. A spend not
    /// acknowledged within --store-timeout-ms is refused (503).
    #[arg(long, default_value_t = 0)]
    redis_wait_replicas: u32,
    /// The issuer's state folder (types 1, 5, 0xDA7B and 0xE5AC: joined origin and issuer).
    #[arg(long)]
    issuer_state: Option<PathBuf>,
    /// The challenge's origin_info (empty: tokens for any origin).
    #[arg(long, default_value = "")]
    origin_info: String,
    /// The challenge's max-age, in seconds.
    #[arg(long, default_value_t = 60)]
    max_age: u32,
    /// Leave token-key out of the challenge (clients use the directory).
    #[arg(long)]
    no_token_key: bool,
    /// Extra root certificate (PEM) for the issuer's TLS.
    #[arg(long)]
    ca_cert: Option<PathBuf>,
    /// How often keys are re-read, in seconds.
    #[arg(long, default_value_t = 10)]
    refresh: u64,
    /// The largest clock difference, in seconds, between the origins that
    /// share a replay store: spent tokens are kept that much longer.
    #[arg(long, default_value_t = pat::deploy::replay::CLOCK_SKEW_MARGIN)]
    clock_skew: u64,
    /// Milliseconds a Redis command may take before the redemption gets 503.
    #[arg(long, default_value_t = 50)]
    store_timeout_ms: u64,
    /// Milliseconds between checks of the Redis store (while the last check
    /// failed, redemptions get 503 at once).
    #[arg(long, default_value_t = 250)]
    store_probe_ms: u64,
    /// TLS certificate chain (PEM); serves HTTPS with --tls-key.
    #[arg(long, requires = "tls_key")]
    tls_cert: Option<PathBuf>,
    /// TLS private key (PEM).
    #[arg(long, requires = "tls_cert")]
    tls_key: Option<PathBuf>,
    #[command(flatten)]
    service: ServiceArgs,
}

#[derive(Args)]
pub(crate) struct Fetch {
    /// The resource.
    url: String,
    /// Where the issuer is, instead of https://ISSUER_NAME (e.g. http://127.0.0.1:8080).
    #[arg(long)]
    issuer_url: Option<String>,
    /// Extra root certificate (PEM), beside the system's.
    #[arg(long)]
    ca_cert: Option<PathBuf>,
    /// Types 0xDA7A and 0xDA7B: an extension of the token, TYPE:HEXDATA (repeatable;
    /// sorted by type; none: the empty list). When the challenge carries an
    /// extension-set, only the types it lists are sent, and every required
    /// type needs a value.
    #[arg(long = "extension", value_parser = parse_extension)]
    extensions: Vec<(u16, Vec<u8>)>,
    /// When the challenge requires an extension type no --extension gives,
    /// send the value the origin suggests in its challenge (off: such a
    /// challenge is an error; an origin's value can single a client out).
    #[arg(long)]
    use_origin_extensions: bool,
    /// Type 0xE5AC (ARC): a file keeping credentials and presentation states
    /// between runs (created with mode 0600, replaced atomically), so that
    /// one credential gives the origin's rate-limit of tokens over as many
    /// runs; without it, each run obtains a credential and presents it once.
    #[arg(long)]
    credential_store: Option<PathBuf>,
}

fn runtime() -> Result<tokio::runtime::Runtime, BoxError> {
    Ok(tokio::runtime::Builder::new_multi_thread().enable_all().build()?)
}

fn exit(result: Result<ExitCode, BoxError>) -> ExitCode {
    result.unwrap_or_else(|e| {
        eprintln!("error: {e}");
        ExitCode::FAILURE
    })
}

fn announce(what: &str, addr: SocketAddr, tls: bool) {
    let scheme = if tls { "https" } else { "http" };
    println!("{what}: listening on {scheme}://{addr}");
    let _ = std::io::stdout().flush();
}

pub(crate) fn issuer(command: IssuerCommand) -> ExitCode {
    exit(match command {
        IssuerCommand::Serve(args) => issuer_serve(*args),
        IssuerCommand::Rotate(args) => issuer_rotate(&args),
    })
}

fn issuer_serve(args: IssuerServe) -> Result<ExitCode, BoxError> {
    args.service.init_logs();
    let tls = match (&args.tls_cert, &args.tls_key) {
        (Some(cert), Some(key)) => Some(tls::server_config(cert, key)?),
        _ => None,
    };
    let scheme = if tls.is_some() { "https" } else { "http" };
    let request_uri = args.request_uri.unwrap_or_else(|| format!("{scheme}://{}{}", args.name, issuer::REQUEST_PATH));
    let config = issuer::IssuerConfig {
        name: args.name,
        request_uri,
        state_dir: args.state,
        token_types: args.token_types,
        lifetime: args.lifetime,
        extensions: args.allowed_extensions.map_or(issuer::ExtensionsPolicy::Any, issuer::ExtensionsPolicy::Only),
    };
    let (listener, addr) = pat_http::bind(args.listen)?;
    let service_args = args.service;
    runtime()?.block_on(async move {
        let metrics = Arc::new(Metrics::new());
        let pool = service_args.pool(&metrics);
        let service = issuer::IssuerService::open_with(config, pool, Arc::clone(&metrics))?;
        service.spawn_refresh(Duration::from_secs(1));
        let ready = Arc::clone(&service);
        let admin = pat_http::admin::routes(Arc::clone(&metrics), move || ready.ready());
        let draining = Arc::clone(&service);
        let routes = issuer::service_router(service);
        run_service("issuer", routes, admin, issuer::route_of, listener, addr, tls, &service_args, metrics, move || {
            draining.drain()
        })
        .await
    })
}

/// Live keys of one type above which `rotate` warns.
const LIVE_KEYS_WARNING: usize = 40;

fn issuer_rotate(args: &IssuerRotate) -> Result<ExitCode, BoxError> {
    let now = unix_now();
    let added =
        keys::rotate(&args.state, args.token_types.as_deref(), now, now.saturating_add(args.in_secs), args.lifetime)?;
    for r in &added {
        println!(
            "type {}: key {} valid from {} to {}",
            r.token_type,
            keys::short_id(&r.key_id),
            r.validity.not_before,
            r.validity.not_after
        );
        if r.live > LIVE_KEYS_WARNING {
            eprintln!(
                "warning: type {} now has {} live keys (at most {}); a rotation every --in seconds with keys of \
                 --lifetime seconds keeps about lifetime/in of them",
                r.token_type,
                r.live,
                keys::MAX_LIVE_KEYS
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub(crate) fn origin(command: OriginCommand) -> ExitCode {
    let OriginCommand::Serve(args) = command;
    exit(origin_serve(*args))
}

fn origin_serve(args: OriginServe) -> Result<ExitCode, BoxError> {
    args.service.init_logs();
    let tls = match (&args.tls_cert, &args.tls_key) {
        (Some(cert), Some(key)) => Some(tls::server_config(cert, key)?),
        _ => None,
    };
    let issuer_url = args.issuer_url.unwrap_or_else(|| format!("https://{}", args.issuer));
    let suggested_extensions =
        if args.suggest_extensions.is_empty() { None } else { Some(encode_extensions(args.suggest_extensions)?) };
    let config = origin::OriginConfig {
        issuer_name: args.issuer,
        issuer_url,
        token_type: args.token_type,
        rate_limit: args.rate_limit,
        extensions: args.allowed_extensions,
        extension_set: extension_set(&args.require_extensions, &args.optional_extensions),
        suggested_extensions,
        origin_info: args.origin_info,
        max_age: args.max_age,
        clock_skew: args.clock_skew,
        issuer_state: args.issuer_state,
        send_token_key: !args.no_token_key,
        refresh: Duration::from_secs(args.refresh.max(1)),
        ca_cert: args.ca_cert,
    };
    let (listener, addr) = pat_http::bind(args.listen)?;
    if args.redis.is_empty() && args.redis_wait_replicas > 0 {
        return Err("--redis-wait-replicas needs --redis".into());
    }
    let redis = match args.redis.as_slice() {
        [] => None,
        [url] => Some(replay::RedisConfig::new(url)),
        seeds => Some(replay::RedisConfig::cluster(seeds.iter().cloned())),
    }
    .map(|config| replay::RedisConfig {
        timeout: Duration::from_millis(args.store_timeout_ms.max(1)),
        probe_interval: Duration::from_millis(args.store_probe_ms.max(10)),
        wait_replicas: args.redis_wait_replicas,
        ..config
    });
    let service_args = args.service;
    runtime()?.block_on(async move {
        let metrics = Arc::new(Metrics::new());
        let replay = match redis {
            Some(config) => replay::Replay::redis(config, Arc::clone(&metrics))?,
            None => replay::Replay::memory(Arc::clone(&metrics))?,
        };
        let pool = service_args.pool(&metrics);
        let service = origin::OriginService::with(config, Arc::new(replay), pool, Arc::clone(&metrics)).await?;
        service.spawn_refresh();
        let ready = Arc::clone(&service);
        let admin = pat_http::admin::routes(Arc::clone(&metrics), move || ready.ready());
        let draining = Arc::clone(&service);
        let routes = origin::protected_router(service);
        run_service("origin", routes, admin, origin::route_of, listener, addr, tls, &service_args, metrics, move || {
            draining.drain()
        })
        .await
    })
}

pub(crate) fn fetch(args: Fetch) -> ExitCode {
    let extensions = if args.extensions.is_empty() {
        None
    } else {
        match encode_extensions(args.extensions) {
            Ok(e) => Some(e),
            Err(e) => return exit(Err(e)),
        }
    };
    let config = client::FetchConfig {
        url: args.url,
        issuer_url: args.issuer_url,
        ca_cert: args.ca_cert,
        extensions,
        use_origin_extensions: args.use_origin_extensions,
        credential_store: args.credential_store,
    };
    exit(runtime().and_then(|rt| {
        rt.block_on(async {
            let status = client::fetch(&config, &mut |line| eprintln!("{line}")).await?;
            println!("status {status}");
            Ok(if (200..300).contains(&status) { ExitCode::SUCCESS } else { ExitCode::FAILURE })
        })
    }))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use pat::wire::extension_set::ExtensionEntry;

    use super::{encode_extensions, extension_set, parse_extension, parse_extension_type, parse_token_type};

    #[test]
    fn types_are_decimal_or_hex() {
        assert_eq!(parse_token_type("2").unwrap(), 2);
        assert_eq!(parse_token_type("55930").unwrap(), 0xDA7A);
        assert_eq!(parse_token_type("0xda7a").unwrap(), 0xDA7A);
        assert_eq!(parse_token_type("0XDA7A").unwrap(), 0xDA7A);
        assert!(parse_token_type("0x10000").is_err());
        assert!(parse_token_type("da7a").is_err());
    }

    #[test]
    fn extensions_are_parsed_sorted_and_encoded() {
        assert_eq!(parse_extension("2:0002").unwrap(), (2, vec![0, 2]));
        assert_eq!(parse_extension("0x1:").unwrap(), (1, vec![]));
        assert!(parse_extension("2").is_err());
        assert!(parse_extension("2:abc").is_err());
        assert!(parse_extension("2:zz").is_err());
        // Type 0 is reserved: not asked for, not offered, not sent.
        assert!(parse_extension("0:00").unwrap_err().contains("reserved"));
        assert!(parse_extension("0x0:").unwrap_err().contains("reserved"));
        assert!(parse_extension_type("0").unwrap_err().contains("reserved"));
        assert_eq!(parse_extension_type("0xFFFF").unwrap(), 0xFFFF);
        assert_eq!(parse_extension_type("1").unwrap(), 1);
        let list = vec![(2, vec![0xaa]), (1, vec![]), (2, vec![0xbb])];
        assert_eq!(encode_extensions(list).unwrap(), [0, 14, 0, 1, 0, 0, 0, 2, 0, 1, 0xaa, 0, 2, 0, 1, 0xbb]);
    }

    #[test]
    fn the_extension_set_lists_required_types_first() {
        assert_eq!(extension_set(&[], &[]), []);
        assert_eq!(
            extension_set(&[0xDA7A, 2], &[1]),
            [ExtensionEntry::required(0xDA7A), ExtensionEntry::required(2), ExtensionEntry::optional(1)]
        );
    }
}
