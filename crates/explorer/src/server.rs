//! The HTTP side: tiny_http (a small synchronous server, 4 dependencies)
//! with a fixed pool of worker threads; server-sent events get a thread of
//! their own so that a long analysis never holds a worker.

use std::io::Write;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Receiver;
use std::sync::Arc;

use tiny_http::{Header, Method, Request, Response, Server, StatusCode};

use crate::api::{ApiError, Explorer};

/// The page, embedded.
pub const PAGE: &str = include_str!("../assets/explorer.html");

/// A running server.
pub struct Running {
    server: Arc<Server>,
    workers: Vec<std::thread::JoinHandle<()>>,
    stopping: Arc<AtomicBool>,
    addr: SocketAddr,
}

impl Running {
    /// The address it listens on (the port chosen when 0 was asked).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// A handle that stops the server from another thread (Ctrl-C).
    pub fn stopper(&self) -> impl Fn() + Send + Sync + 'static {
        let server = Arc::clone(&self.server);
        let stopping = Arc::clone(&self.stopping);
        let workers = self.workers.len();
        move || {
            stopping.store(true, Ordering::SeqCst);
            for _ in 0..workers {
                server.unblock();
            }
        }
    }

    /// Waits until the server is stopped.
    pub fn join(self) {
        for w in self.workers {
            let _ = w.join();
        }
    }
}

/// Starts serving `explorer` on `addr` with `threads` workers.
pub fn start(explorer: Arc<Explorer>, addr: &str, threads: usize) -> Result<Running, String> {
    let listener = std::net::TcpListener::bind(addr).map_err(|e| format!("cannot listen on {addr}: {e}"))?;
    no_delay(&listener);
    let server = Server::from_listener(listener, None).map_err(|e| format!("cannot listen on {addr}: {e}"))?;
    let addr = server.server_addr().to_ip().ok_or_else(|| format!("{addr} is not an IP address"))?;
    let server = Arc::new(server);
    let stopping = Arc::new(AtomicBool::new(false));
    let workers = (0..threads.max(1))
        .map(|_| {
            let (server, explorer, stopping) = (Arc::clone(&server), Arc::clone(&explorer), Arc::clone(&stopping));
            std::thread::spawn(move || {
                while !stopping.load(Ordering::SeqCst) {
                    match server.recv() {
                        Ok(request) => handle(&explorer, request),
                        Err(_) => break,
                    }
                }
            })
        })
        .collect();
    Ok(Running { server, workers, stopping, addr })
}

/// Sets TCP_NODELAY on the listening socket; Linux passes it on to every
/// accepted connection. tiny_http writes a response in 1 KiB pieces, and
/// without it Nagle's algorithm holds the second piece until the client's
/// delayed acknowledgement (40 ms) on a kept-alive connection.
fn no_delay(listener: &std::net::TcpListener) {
    #[cfg(unix)]
    {
        use std::os::fd::AsRawFd;
        let on: libc::c_int = 1;
        // SAFETY: a valid socket descriptor and a c_int option of its size.
        unsafe {
            libc::setsockopt(
                listener.as_raw_fd(),
                libc::IPPROTO_TCP,
                libc::TCP_NODELAY,
                (&on as *const libc::c_int).cast(),
                std::mem::size_of::<libc::c_int>() as libc::socklen_t,
            );
        }
    }
    #[cfg(not(unix))]
    let _ = listener;
}

fn header(name: &str, value: &str) -> Header {
    Header::from_bytes(name.as_bytes(), value.as_bytes()).expect("static header names and values are valid")
}

fn json_response(status: u16, body: String) -> Response<std::io::Cursor<Vec<u8>>> {
    Response::from_string(body)
        .with_status_code(StatusCode(status))
        .with_header(header("Content-Type", "application/json; charset=utf-8"))
        .with_header(header("Cache-Control", "no-store"))
}

fn error(e: &ApiError) -> Response<std::io::Cursor<Vec<u8>>> {
    json_response(e.status, e.json())
}

/// Answers one request. A client that has gone away is not an error.
fn handle(explorer: &Arc<Explorer>, request: Request) {
    let url = request.url().to_string();
    let (path, query) = url.split_once('?').unwrap_or((url.as_str(), ""));
    if request.method() != &Method::Get && request.method() != &Method::Head {
        let message = format!("{} is not supported; use GET", request.method());
        let _ = request.respond(error(&ApiError { status: 405, message }));
        return;
    }
    let response = match path {
        "/" | "/index.html" => Response::from_string(PAGE)
            .with_header(header("Content-Type", "text/html; charset=utf-8"))
            .with_header(header("Cache-Control", "no-cache")),
        "/api/explorer" => match explorer.explorer(query) {
            Ok(v) => json_response(200, v.to_string()),
            Err(e) => error(&e),
        },
        "/api/tablebase" => match explorer.tablebase(query) {
            Ok(v) => json_response(200, v.to_string()),
            Err(e) => error(&e),
        },
        "/api/eval" => match explorer.eval(query) {
            Ok((rx, stop)) => {
                // A thread of its own: the stream lasts as long as the
                // search. Written raw, one flushed write per event (tiny_http
                // would buffer a chunked body), and the connection closed at
                // the end.
                std::thread::spawn(move || stream_events(request, rx, &stop));
                return;
            }
            Err(e) => error(&e),
        },
        "/favicon.ico" => Response::from_string("").with_status_code(StatusCode(204)),
        _ => error(&ApiError::not_found(format!("no such page: {path}"))),
    };
    let _ = request.respond(response);
}

/// Writes a search's events as they come, and a comment line each second
/// between them; it ends when the search does. When the client goes away a
/// write fails and the search is stopped.
fn stream_events(request: Request, rx: Receiver<String>, stop: &AtomicBool) {
    let mut out = request.into_writer();
    let head =
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n";
    if out.write_all(head.as_bytes()).and_then(|()| out.flush()).is_err() {
        return;
    }
    loop {
        let text = match rx.recv_timeout(std::time::Duration::from_secs(1)) {
            Ok(event) => event,
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => ": searching\n\n".to_string(),
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => return,
        };
        if out.write_all(text.as_bytes()).and_then(|()| out.flush()).is_err() {
            stop.store(true, Ordering::Relaxed);
            return;
        }
    }
}
