//! `pat issuer serve`, `pat issuer rotate`, `pat origin serve` and `pat
//! fetch`: the services of the `pat-http` crate behind the `serve` feature.

use std::io::Write as _;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Subcommand};
use pat_http::{BoxError, client, issuer, keys, origin, replay, tls, unix_now};

#[derive(Subcommand)]
pub(crate) enum IssuerCommand {
    /// Serve the issuer directory and issue tokens (keys made on first start).
    Serve(IssuerServe),
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
    /// safe-prime RSA key on first start, which takes seconds).
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
    /// Type 0xDA7A: the only extension types issued (decimal or 0x hex,
    /// comma-separated; default: any well-formed list). Others get 400.
    #[arg(long, value_delimiter = ',', value_parser = parse_token_type)]
    allowed_extensions: Option<Vec<u16>>,
}

/// A token or extension type: decimal, or hex with `0x`.
fn parse_token_type(s: &str) -> Result<u16, String> {
    let parsed = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) => u16::from_str_radix(hex, 16),
        None => s.parse::<u16>(),
    };
    parsed.map_err(|e| format!("`{s}`: {e}"))
}

/// One `--extension TYPE:HEX`: its type and data.
fn parse_extension(s: &str) -> Result<(u16, Vec<u8>), String> {
    let (ty, hex) = s.split_once(':').ok_or_else(|| format!("`{s}`: expected TYPE:HEX"))?;
    let ty = parse_token_type(ty)?;
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
fn encode_extensions(mut list: Vec<(u16, Vec<u8>)>) -> Result<Vec<u8>, BoxError> {
    list.sort_by_key(|(t, _)| *t);
    let len = 2 + list.iter().map(|(_, d)| 4 + d.len()).sum::<usize>();
    let mut buf = vec![0u8; len];
    let mut w = pat::extensions::ExtensionsWriter::new(&mut buf);
    for (t, d) in &list {
        w.push(*t, d)?;
    }
    let n = w.finish()?.as_bytes().len();
    buf.truncate(n);
    Ok(buf)
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
    Serve(OriginServe),
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
    /// The token type asked for (1, 2, 5 or 0xDA7A).
    #[arg(long, value_parser = parse_token_type)]
    token_type: u16,
    /// Type 0xDA7A: the only extension types a redeemed token may carry
    /// (decimal or 0x hex, comma-separated; default: any).
    #[arg(long, value_delimiter = ',', value_parser = parse_token_type)]
    allowed_extensions: Option<Vec<u16>>,
    /// Replay store in Redis (redis://HOST:PORT); in memory when omitted.
    #[arg(long)]
    redis: Option<String>,
    /// The issuer's state folder (types 1 and 5: joined origin and issuer).
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
    /// Type 0xDA7A: an extension of the token, TYPE:HEXDATA (repeatable;
    /// sorted by type; none: the empty list).
    #[arg(long = "extension", value_parser = parse_extension)]
    extensions: Vec<(u16, Vec<u8>)>,
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
        IssuerCommand::Serve(args) => issuer_serve(args),
        IssuerCommand::Rotate(args) => issuer_rotate(&args),
    })
}

fn issuer_serve(args: IssuerServe) -> Result<ExitCode, BoxError> {
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
    runtime()?.block_on(async move {
        let service = issuer::IssuerService::open(config)?;
        service.spawn_refresh(Duration::from_secs(1));
        announce("issuer", addr, tls.is_some());
        pat_http::serve(issuer::router(service), listener, tls).await?;
        Ok(ExitCode::SUCCESS)
    })
}

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
    }
    Ok(ExitCode::SUCCESS)
}

pub(crate) fn origin(command: OriginCommand) -> ExitCode {
    let OriginCommand::Serve(args) = command;
    exit(origin_serve(args))
}

fn origin_serve(args: OriginServe) -> Result<ExitCode, BoxError> {
    let issuer_url = args.issuer_url.unwrap_or_else(|| format!("https://{}", args.issuer));
    let config = origin::OriginConfig {
        issuer_name: args.issuer,
        issuer_url,
        token_type: args.token_type,
        extensions: args.allowed_extensions,
        origin_info: args.origin_info,
        max_age: args.max_age,
        issuer_state: args.issuer_state,
        send_token_key: !args.no_token_key,
        refresh: Duration::from_secs(args.refresh.max(1)),
        ca_cert: args.ca_cert,
    };
    let (listener, addr) = pat_http::bind(args.listen)?;
    let redis = args.redis;
    runtime()?.block_on(async move {
        let replay = match &redis {
            Some(url) => replay::Replay::redis(url).await?,
            None => replay::Replay::memory()?,
        };
        let service = origin::OriginService::new(config, replay).await?;
        service.spawn_refresh();
        announce("origin", addr, false);
        pat_http::serve(origin::router(service), listener, None).await?;
        Ok(ExitCode::SUCCESS)
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
    let config = client::FetchConfig { url: args.url, issuer_url: args.issuer_url, ca_cert: args.ca_cert, extensions };
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

    use super::{encode_extensions, parse_extension, parse_token_type};

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
        let list = vec![(2, vec![0xaa]), (1, vec![]), (2, vec![0xbb])];
        assert_eq!(encode_extensions(list).unwrap(), [0, 14, 0, 1, 0, 0, 0, 2, 0, 1, 0xaa, 0, 2, 0, 1, 0xbb]);
    }
}
