//! A bounded load test of the explorer API: a fixed number of requests at a
//! fixed concurrency against a running `alq serve`, then it stops and
//! prints the latency percentiles.
//!
//!     cargo run --release -p alq-explorer --example load -- 127.0.0.1:8080 [REQUESTS] [CLIENTS]
//!
//! Defaults: 20,000 requests from 64 clients. Each client keeps one HTTP/1.1
//! connection and asks `/api/explorer` for lines drawn from a set of 500
//! found first by random walks through the moves the games played (up to 10
//! plies), so that the requests spread over the tree as a user's would.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn request(stream: &mut BufReader<TcpStream>, target: &str) -> Result<(u16, String), String> {
    write!(stream.get_mut(), "GET {target} HTTP/1.1\r\nHost: load\r\nConnection: keep-alive\r\n\r\n")
        .map_err(|e| e.to_string())?;
    let mut status_line = String::new();
    stream.read_line(&mut status_line).map_err(|e| e.to_string())?;
    let status = status_line.split_whitespace().nth(1).and_then(|s| s.parse().ok()).ok_or("no status")?;
    let mut length = 0usize;
    loop {
        let mut line = String::new();
        stream.read_line(&mut line).map_err(|e| e.to_string())?;
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((k, v)) = line.split_once(':') {
            if k.eq_ignore_ascii_case("content-length") {
                length = v.trim().parse().map_err(|_| "bad length")?;
            }
        }
    }
    let mut body = vec![0; length];
    stream.read_exact(&mut body).map_err(|e| e.to_string())?;
    Ok((status, String::from_utf8_lossy(&body).into_owned()))
}

fn connect(addr: &str) -> BufReader<TcpStream> {
    let s = TcpStream::connect(addr).unwrap_or_else(|e| panic!("cannot connect to {addr}: {e}"));
    s.set_nodelay(true).ok();
    s.set_read_timeout(Some(Duration::from_secs(30))).ok();
    BufReader::new(s)
}

/// Lines found by random walks through the played moves.
fn lines(addr: &str, count: usize) -> Vec<String> {
    let mut conn = connect(addr);
    let mut state = 0x9e3779b97f4a7c15u64;
    let mut next = move |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    };
    let mut out = Vec::new();
    while out.len() < count {
        let mut line: Vec<String> = Vec::new();
        for _ in 0..=next(10) {
            let (status, body) = request(&mut conn, &format!("/api/explorer?moves={}", line.join("+"))).unwrap();
            assert_eq!(status, 200, "{body}");
            let v: serde_json::Value = serde_json::from_str(&body).unwrap();
            let played: Vec<&str> = v["moves"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|m| m["games"].as_u64() > Some(0))
                .filter_map(|m| m["move"].as_str())
                .collect();
            if played.is_empty() {
                break;
            }
            line.push(played[next(played.len())].to_string());
        }
        out.push(line.join("+"));
    }
    out
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let addr = args.get(1).cloned().unwrap_or_else(|| "127.0.0.1:8080".to_string());
    let total: usize = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(20_000);
    let clients: usize = args.get(3).and_then(|a| a.parse().ok()).unwrap_or(64);
    let lines = Arc::new(lines(&addr, 500));
    let issued = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let workers: Vec<_> = (0..clients)
        .map(|c| {
            let (addr, lines, issued) = (addr.clone(), Arc::clone(&lines), Arc::clone(&issued));
            std::thread::spawn(move || {
                let mut conn = connect(&addr);
                let mut times = Vec::new();
                let mut errors = 0;
                loop {
                    let i = issued.fetch_add(1, Ordering::Relaxed);
                    if i >= total {
                        break;
                    }
                    let line = &lines[(i * 7919 + c) % lines.len()];
                    let t = Instant::now();
                    match request(&mut conn, &format!("/api/explorer?moves={line}")) {
                        Ok((200, _)) => times.push(t.elapsed()),
                        _ => {
                            errors += 1;
                            conn = connect(&addr);
                        }
                    }
                }
                (times, errors)
            })
        })
        .collect();
    let mut times = Vec::new();
    let mut errors = 0;
    for w in workers {
        let (t, e) = w.join().unwrap();
        times.extend(t);
        errors += e;
    }
    let wall = started.elapsed();
    times.sort();
    let pct = |p: f64| times[((times.len() as f64 * p) as usize).min(times.len() - 1)].as_secs_f64() * 1000.0;
    println!(
        "{} requests from {clients} clients in {:.2} s ({:.0}/s), {errors} errors: p50 {:.2} ms, p90 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        times.len(),
        wall.as_secs_f64(),
        times.len() as f64 / wall.as_secs_f64(),
        pct(0.50),
        pct(0.90),
        pct(0.99),
        pct(1.0)
    );
}
