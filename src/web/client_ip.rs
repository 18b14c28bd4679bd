//! The address a request comes from: the peer's, or, when the peer is a trusted proxy
//! (`WARREN_TRUSTED_PROXIES`), the address the proxies name in `X-Forwarded-For`. The header
//! is read from the right: each trusted proxy appends what it saw, so the first address that
//! is not a trusted proxy is the client. Anything a client wrote further left is not believed.

use std::net::{IpAddr, SocketAddr};

use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::request::Parts;

use super::AppState;

pub struct ClientIp(pub IpAddr);

impl FromRequestParts<AppState> for ClientIp {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Self::Rejection> {
        let peer = parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map_or(IpAddr::from([0, 0, 0, 0]), |ConnectInfo(addr)| addr.ip());
        Ok(ClientIp(client_ip(peer, &parts.headers, &state.trusted_proxies)))
    }
}

fn client_ip(peer: IpAddr, headers: &axum::http::HeaderMap, trusted: &[ipnet::IpNet]) -> IpAddr {
    let is_trusted = |ip: &IpAddr| trusted.iter().any(|net| net.contains(ip));
    if !is_trusted(&peer) {
        return peer;
    }
    let forwarded: Vec<&str> = headers
        .get_all("x-forwarded-for")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .collect();
    let mut client = peer;
    for hop in forwarded.iter().rev() {
        let Ok(ip) = hop.trim().parse::<IpAddr>() else { break };
        client = ip;
        if !is_trusted(&ip) {
            break;
        }
    }
    client
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    fn headers(values: &[&str]) -> axum::http::HeaderMap {
        let mut map = axum::http::HeaderMap::new();
        for v in values {
            map.append("x-forwarded-for", v.parse().unwrap());
        }
        map
    }

    #[test]
    fn only_a_trusted_peer_is_believed_and_only_from_the_right() {
        let trusted: Vec<ipnet::IpNet> = vec!["10.0.0.0/8".parse().unwrap()];
        let h = headers(&["198.51.100.9, 203.0.113.5", "10.1.1.1"]);
        // Not a proxy: the header is ignored.
        assert_eq!(client_ip(ip("192.0.2.1"), &h, &trusted), ip("192.0.2.1"));
        // Through two proxies: the first address from the right that is not one.
        assert_eq!(client_ip(ip("10.0.0.2"), &h, &trusted), ip("203.0.113.5"));
        // Nothing (or nonsense) forwarded: the proxy itself.
        assert_eq!(client_ip(ip("10.0.0.2"), &headers(&[]), &trusted), ip("10.0.0.2"));
        assert_eq!(client_ip(ip("10.0.0.2"), &headers(&["nonsense"]), &trusted), ip("10.0.0.2"));
        // Nothing trusted: never believed.
        assert_eq!(client_ip(ip("10.0.0.2"), &h, &[]), ip("10.0.0.2"));
        assert_eq!(
            client_ip(ip("::1"), &headers(&["2001:db8::1"]), &["::1/128".parse().unwrap()]),
            ip("2001:db8::1")
        );
    }
}
