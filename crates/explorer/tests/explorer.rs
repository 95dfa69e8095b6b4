//! The explorer: the index against an independent count of the games, the
//! API's answers and errors, and the HTTP server under bad requests.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use alq_engine::{Game, GameConfig, Position, RuleSet};
use alq_explorer::{Explorer, Index, Known, Settler};
use alq_records::{GameRecord, RecordWriter};

/// A folder of its own for each test.
fn fresh_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("alq-explorer-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `n` random games (capped at 80 plies), written as records.
fn games_file(dir: &std::path::Path, n: u64, seed: u64) -> PathBuf {
    let path = dir.join("games.csv");
    let mut writer = RecordWriter::append(&path).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for id in 0..n {
        let mut game = Game::new(Position::start(), GameConfig { max_plies: Some(80), ..GameConfig::default() });
        while !game.is_over() {
            let moves = game.legal_moves();
            game.play(*moves.choose(&mut rng).unwrap()).unwrap();
        }
        let scores = vec![None; game.plies()];
        writer.write(&GameRecord::from_game(id, id, "random", "random", &game, 0, &scores)).unwrap();
    }
    path
}

/// Independent counts by position text: games through each position (once
/// per game) and games per (position, next position), within `max_plies`.
#[derive(Default)]
struct Truth {
    nodes: HashMap<String, [u64; 3]>,
    edges: HashMap<(String, String), [u64; 3]>,
}

fn truth(path: &std::path::Path, max_plies: usize) -> Truth {
    let mut t = Truth::default();
    for game in alq_records::RecordReader::open(path).unwrap() {
        let game = game.unwrap();
        let slot = match game.record.result.as_str() {
            "1-0" => 0,
            "0-1" => 2,
            _ => 1,
        };
        let texts: Vec<String> = game.game.positions().iter().take(max_plies + 1).map(|p| p.to_string()).collect();
        let mut seen = std::collections::HashSet::new();
        for text in &texts {
            if seen.insert(text.clone()) {
                t.nodes.entry(text.clone()).or_default()[slot] += 1;
            }
        }
        let mut seen_edges = std::collections::HashSet::new();
        for w in texts.windows(2) {
            if seen_edges.insert((w[0].clone(), w[1].clone())) {
                t.edges.entry((w[0].clone(), w[1].clone())).or_default()[slot] += 1;
            }
        }
    }
    t
}

#[test]
fn the_index_counts_what_an_independent_count_does() {
    let dir = fresh_dir("index");
    let path = games_file(&dir, 400, 1);
    let index = Index::build(std::slice::from_ref(&path), RuleSet::BrainKing, 12, |_, _| {}).unwrap();
    assert_eq!(index.stats().games, 400);
    let t = truth(&path, 12);
    assert_eq!(index.stats().positions, t.nodes.len());
    assert_eq!(index.stats().moves, t.edges.len());
    for (text, counts) in &t.nodes {
        let c = index.position(&text.parse().unwrap());
        assert_eq!([c.white as u64, c.draws as u64, c.black as u64], *counts, "{text}");
    }
    for ((from, to), counts) in &t.edges {
        let c = index.edge(&from.parse().unwrap(), &to.parse().unwrap());
        assert_eq!([c.white as u64, c.draws as u64, c.black as u64], *counts, "{from} -> {to}");
    }
    // Unknown positions and moves count nothing.
    let empty: Position = "...../...../..W../...../..B.. w".parse().unwrap();
    assert_eq!(index.position(&empty).games(), 0);
    let _ = std::fs::remove_dir_all(dir);
}

fn explorer(name: &str) -> (Explorer, PathBuf) {
    let dir = fresh_dir(name);
    let path = games_file(&dir, 300, 2);
    let index = Index::build(std::slice::from_ref(&path), RuleSet::BrainKing, 40, |_, _| {}).unwrap();
    let eval = Some(alq_play::EvalSpec::parse("hce").unwrap());
    (Explorer::new(index, None, Known::default(), eval, 200), path)
}

#[test]
fn the_api_answers_from_the_index() {
    let (ex, path) = explorer("api");
    let t = truth(&path, 40);
    let start = ex.explorer("").unwrap();
    assert_eq!(start["position"], Position::start().to_string());
    assert_eq!(start["games"], 300);
    assert_eq!(start["legal"].as_array().unwrap().len(), 4);
    let moves = start["moves"].as_array().unwrap();
    let played: u64 = moves.iter().map(|m| m["games"].as_u64().unwrap()).sum();
    assert_eq!(played, 300, "every game from the start plays one of the first moves");
    for m in moves {
        let child = Position::start().play(Position::start().parse_move(m["move"].as_str().unwrap()).unwrap());
        let want = t.edges[&(Position::start().to_string(), child.to_string())];
        assert_eq!([m["white"].as_u64().unwrap(), m["draws"].as_u64().unwrap(), m["black"].as_u64().unwrap()], want);
        assert!(m["score"].as_str().unwrap().starts_with("cp ") || m["score"].as_str().unwrap().starts_with("win"));
    }
    // Most played first.
    let games: Vec<u64> = moves.iter().map(|m| m["games"].as_u64().unwrap()).collect();
    assert!(games.windows(2).all(|w| w[0] >= w[1]));
    // A line given by moves, or by position, gives the same answer.
    let line = ex.explorer("moves=c2-c3+c4xc2").unwrap();
    assert_eq!(line["line"], serde_json::json!(["c2-c3", "c4xc2"]));
    let text = line["position"].as_str().unwrap().to_string();
    let query: String = form_urlencoded::Serializer::new(String::new()).append_pair("position", &text).finish();
    let by_position = ex.explorer(&query).unwrap();
    assert_eq!(by_position["games"], line["games"]);
    assert_eq!(by_position["moves"], line["moves"]);
}

/// An explorer whose oracle has the shipped proofs, no tables, and
/// searches of `budget`; requests wait `wait`.
fn explorer_with_oracle(name: &str, budget: alq_solver::Budget, wait: Duration) -> Explorer {
    let (ex, _) = explorer(name);
    let eval = Box::new(alq_engine::Hce::new(alq_engine::HceWeights::default()));
    let oracle = alq_oracle::Oracle::new(RuleSet::BrainKing, None, eval, budget);
    oracle.read_shipped().unwrap();
    ex.with_oracle(Settler::start(Arc::new(oracle), wait))
}

#[test]
fn the_oracle_gives_exact_values_and_settles_the_rest_in_the_background() {
    let ex = explorer_with_oracle("oracle", alq_solver::Budget::nodes(20_000), Duration::ZERO);
    // The shipped proofs settle the start and every first move at once.
    let start = ex.explorer("").unwrap();
    assert_eq!((start["exact"].as_str(), start["exact_source"].as_str()), (Some("draw"), Some("proof")));
    assert_eq!(start["exact_pending"], 0);
    // Narrowness: three of the four first moves keep the draw (d2-c3 loses).
    assert_eq!(start["keeping_moves"], 3, "{start}");
    let values: HashMap<&str, &str> = start["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["move"].as_str().unwrap(), m["exact"].as_str().unwrap()))
        .collect();
    assert_eq!(values["d2-c3"], "loss", "{values:?}");
    assert_eq!(values.values().filter(|v| **v == "draw").count(), 3, "{values:?}");
    // A position nothing knows: pending at first (the request waits 0 ms),
    // then settled by the worker, and the same answer from the cache.
    let won: Position = "...../...../..B../..W../..... w".parse().unwrap();
    let query: String =
        form_urlencoded::Serializer::new(String::new()).append_pair("position", &won.to_string()).finish();
    let first = ex.explorer(&query).unwrap();
    assert!(first["exact_pending"].as_u64().unwrap() > 0, "{first}");
    assert!(first["exact"].is_null());
    let mut answer = first;
    for _ in 0..200 {
        if answer["exact_pending"] == 0 {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
        answer = ex.explorer(&query).unwrap();
    }
    assert_eq!(answer["exact_pending"], 0, "{answer}");
    assert_eq!((answer["exact"].as_str(), answer["exact_source"].as_str()), (Some("win"), Some("search")));
    let again = ex.explorer(&query).unwrap();
    assert_eq!(again["exact"], answer["exact"]);
}

#[test]
fn a_position_the_budget_cannot_settle_is_unknown_never_guessed() {
    let ex = explorer_with_oracle("unknown", alq_solver::Budget::nodes(0), Duration::from_secs(5));
    let query: String = form_urlencoded::Serializer::new(String::new())
        .append_pair("position", "BB.BB/B.B.B/...../W.W.W/WW.WW w")
        .finish();
    let middle = ex.explorer(&query).unwrap();
    // No search may run: what the proofs do not settle is unknown.
    assert_eq!(middle["exact_pending"], 0, "{middle}");
    let values: Vec<&str> = middle["moves"].as_array().unwrap().iter().map(|m| m["exact"].as_str().unwrap()).collect();
    assert!(values.len() > 5 && values.iter().all(|v| *v == "unknown"), "{values:?}");
    assert_eq!(middle["exact"], "unknown");
}

#[test]
fn bad_queries_are_client_errors() {
    let (ex, _) = explorer("bad");
    for (query, status) in [
        ("moves=a1-a5", 400),
        ("moves=c2-c3+zz", 400),
        ("moves=c2-c3&position=x", 400),
        ("position=BBBBB", 400),
        ("moves=c2-c3&moves=d2-c3", 400),
    ] {
        let e = ex.explorer(query).unwrap_err();
        assert_eq!(e.status, status, "{query}: {}", e.message);
        assert!(serde_json::from_str::<serde_json::Value>(&e.json()).unwrap()["error"].is_string());
    }
    let huge = format!("moves={}", "c2-c3+".repeat(5000));
    assert_eq!(ex.explorer(&huge).unwrap_err().status, 414);
    assert_eq!(ex.tablebase("").unwrap_err().status, 404);
    assert_eq!(ex.eval("depth=0").unwrap_err().status, 400);
}

fn get(addr: std::net::SocketAddr, target: &str) -> (u16, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    write!(s, "GET {target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).unwrap();
    let status = text.split_whitespace().nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    let body = text.split_once("\r\n\r\n").map(|(_, b)| b.to_string()).unwrap_or_default();
    (status, body)
}

#[test]
fn the_server_survives_bad_requests_and_streams_the_engine() {
    let (ex, _) = explorer("http");
    let running = alq_explorer::start(Arc::new(ex), "127.0.0.1:0", 4).unwrap();
    let addr = running.addr();
    let (status, page) = get(addr, "/");
    assert_eq!(status, 200);
    assert!(page.contains("<svg") || page.contains("<html"));
    let long = format!("/api/explorer?moves={}", "c2-c3+".repeat(3000));
    let bad = [
        "/api/explorer?moves=a1-a5",
        "/api/explorer?moves=%ZZ",
        "/api/explorer?position=%00%01",
        "/api/eval?depth=abc",
        "/api/nothing",
        long.as_str(),
        "/api/explorer?moves=c2-c3&moves=c2-c3",
    ];
    for i in 0..300 {
        let target = bad[i % bad.len()];
        let (status, body) = get(addr, target);
        assert!((400..500).contains(&status), "{target}: {status}");
        assert!(serde_json::from_str::<serde_json::Value>(&body).unwrap()["error"].is_string(), "{target}: {body}");
    }
    // Garbage and connections closed half-way.
    for garbage in ["NONSENSE\r\n\r\n", "GET\r\n\r\n", "GET /api/explorer HTTP/1.1\r\nHost", "\u{0}\u{1}\u{2}"] {
        let mut s = TcpStream::connect(addr).unwrap();
        let _ = s.write_all(garbage.as_bytes());
        drop(s);
    }
    for _ in 0..5 {
        // An analysis whose client goes away after the first event.
        let mut s = TcpStream::connect(addr).unwrap();
        write!(s, "GET /api/eval?moves=c2-c3&depth=40 HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
        let mut line = String::new();
        BufReader::new(&s).read_line(&mut line).unwrap();
        assert!(line.contains("200"), "{line}");
        drop(s);
    }
    // A whole analysis: rising depths, then the best move.
    let (status, events) = get(addr, "/api/eval?moves=c2-c3&depth=6");
    assert_eq!(status, 200);
    let depths: Vec<u64> = events
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .filter_map(|d| serde_json::from_str::<serde_json::Value>(d).ok())
        .filter_map(|v| v["depth"].as_u64())
        .collect();
    assert_eq!(depths.iter().max(), Some(&6), "{events}");
    assert!(events.contains("event: bestmove"));
    // Still serving good requests.
    let (status, body) = get(addr, "/api/explorer?moves=c2-c3");
    assert_eq!(status, 200);
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["line"], serde_json::json!(["c2-c3"]));
    (running.stopper())();
    running.join();
}
