//! The socket as hyper sees it. hyper answers a request head it cannot parse
//! (400, or 431 over the limits) by itself, with a bare response: no body and
//! no CORS headers, so a page on another origin could not even read it. This
//! wrapper swaps that one response for the mock's own (an OpenAI-style JSON
//! error with the CORS headers and `Connection: close`); every other byte
//! passes through untouched.
//!
//! hyper's own refusal is told apart by its shape: it is the last head of a
//! write (writes are whole buffers, see `writev(false)` in `conn.rs`) and,
//! unlike every answer of the mock, carries no `Access-Control-Allow-Origin`.
//! A JSON body never ends a write with `\r\n\r\n` (JSON text escapes line
//! breaks), so a body is never taken for a head.

use super::routes::{self, Reply};
use hyper::rt::{Read, ReadBufCursor, Write};
use hyper_util::rt::TokioIo;
use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

/// A stream for hyper that gives hyper's own refusals the mock's answer.
pub struct Wire<T> {
    inner: TokioIo<T>,
    /// The bytes sent in place of hyper's write, how many are out, and how
    /// long hyper's write was (what hyper is told was written).
    swap: Option<(Vec<u8>, usize, usize)>,
    /// The status of the refusal swapped in, if any.
    refused: Option<u16>,
    head_limit: usize,
    max_headers: usize,
}

impl<T> Wire<T> {
    /// Wraps a stream; the limits name what a 431 was over.
    pub fn new(stream: T, head_limit: usize, max_headers: usize) -> Wire<T> {
        Wire {
            inner: TokioIo::new(stream),
            swap: None,
            refused: None,
            head_limit,
            max_headers,
        }
    }

    /// The status of hyper's refusal, when one was sent (as the mock's answer).
    pub fn refused(&self) -> Option<u16> {
        self.refused
    }

    /// The stream back.
    pub fn into_inner(self) -> T {
        self.inner.into_inner()
    }
}

/// Where hyper's own refusal starts in a write, and its status: the write ends
/// with a head (`HTTP/1.1 4xx` or `5xx`, then `\r\n\r\n`) that has no CORS header.
pub fn automatic_refusal(buf: &[u8]) -> Option<(usize, u16)> {
    const LINE: &[u8] = b"HTTP/1.1 ";
    if !buf.ends_with(b"\r\n\r\n") {
        return None;
    }
    let start = buf.windows(LINE.len()).rposition(|w| w == LINE)?;
    let head = &buf[start..];
    let cors = b"access-control-allow-origin";
    if head
        .windows(cors.len())
        .any(|w| w.eq_ignore_ascii_case(cors))
    {
        return None;
    }
    let status: u16 = std::str::from_utf8(head.get(LINE.len()..LINE.len() + 3)?)
        .ok()?
        .parse()
        .ok()?;
    (400..600).contains(&status).then_some((start, status))
}

/// The whole response for a refused request: status line, [`routes::headers`]
/// with `Connection: close`, the length, and the JSON body.
pub fn refusal_bytes(reply: &Reply) -> Vec<u8> {
    let reason = hyper::StatusCode::from_u16(reply.status)
        .ok()
        .and_then(|s| s.canonical_reason())
        .unwrap_or("Error");
    let mut text = format!("HTTP/1.1 {} {reason}\r\n", reply.status);
    for (name, value) in routes::headers(reply, true) {
        text.push_str(&format!("{name}: {value}\r\n"));
    }
    text.push_str(&format!(
        "Content-Length: {}\r\n\r\n{}",
        reply.body.len(),
        reply.body
    ));
    text.into_bytes()
}

impl<T: tokio::io::AsyncRead + Unpin> Read for Wire<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: ReadBufCursor<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<T: tokio::io::AsyncWrite + Unpin> Write for Wire<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        if this.swap.is_none() {
            if let Some((start, status)) = automatic_refusal(buf) {
                let reply = routes::unreadable(status, this.head_limit, this.max_headers);
                let mut bytes = buf[..start].to_vec();
                bytes.extend_from_slice(&refusal_bytes(&reply));
                this.swap = Some((bytes, 0, buf.len()));
                this.refused = Some(status);
            }
        }
        let Some((bytes, sent, claimed)) = &mut this.swap else {
            return Pin::new(&mut this.inner).poll_write(cx, buf);
        };
        while *sent < bytes.len() {
            let n = ready!(Pin::new(&mut this.inner).poll_write(cx, &bytes[*sent..]))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            *sent += n;
        }
        let claimed = *claimed;
        this.swap = None;
        Poll::Ready(Ok(claimed))
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn only_a_last_head_without_cors_is_hyper_s_refusal() {
        let bare = b"HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n";
        assert_eq!(automatic_refusal(bare), Some((0, 400)));
        let ours = refusal_bytes(&routes::error(400, "x", "invalid_request_error"));
        assert_eq!(automatic_refusal(&ours), None);
        // Our 204 (no body) carries CORS too.
        let preflight = b"HTTP/1.1 204 No Content\r\naccess-control-allow-origin: *\r\n\r\n";
        assert_eq!(automatic_refusal(preflight), None);
        // After a pipelined answer, in the same write.
        let mut both = ours.clone();
        both.extend_from_slice(b"HTTP/1.1 431 Request Header Fields Too Large\r\n\r\n");
        assert_eq!(automatic_refusal(&both), Some((ours.len(), 431)));
        for other in [
            &b"HTTP/1.1 100 Continue\r\n\r\n"[..],
            b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
            b"{\"a\":\"HTTP/1.1 400 x\"}",
            b"",
        ] {
            assert_eq!(automatic_refusal(other), None, "{other:?}");
        }
    }

    #[test]
    fn the_swapped_in_refusal_is_the_mock_s_json_error_with_cors_and_close() {
        let reply = routes::unreadable(431, 65536, 100);
        let text = String::from_utf8(refusal_bytes(&reply)).expect("utf-8");
        let (head, body) = text.split_once("\r\n\r\n").expect("head end");
        let lines: Vec<&str> = head.split("\r\n").collect();
        assert_eq!(lines[0], "HTTP/1.1 431 Request Header Fields Too Large");
        for (k, v) in routes::CORS {
            assert!(lines.contains(&format!("{k}: {v}").as_str()), "{k}");
        }
        assert!(lines.contains(&"Connection: close"));
        assert!(lines.contains(&"Content-Type: application/json"));
        assert!(lines.contains(&format!("Content-Length: {}", body.len()).as_str()));
        let v: Value = serde_json::from_str(body).expect("json");
        assert_eq!(v["error"]["type"], "invalid_request_error");
        assert!(v["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("65536")));
    }
}
