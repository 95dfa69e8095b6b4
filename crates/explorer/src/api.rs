//! The explorer's answers, independent of HTTP: a query string in, JSON (or
//! a stream of search iterations) out, or an error with its HTTP status.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex};

use serde_json::json;
use serde_json::Value as Json;

use alq_oracle::Value;

use alq_engine::{Exact, Game, GameConfig, Limits, Move, Position, RuleSet, Score, SearchConfig, Searcher, Wdl};
use alq_play::EvalSpec;
use alq_tablebase::{Kind, Tablebase};

use crate::index::{Counts, Index};
use crate::settle::{Lookup, Settler};

/// A request that cannot be answered: the HTTP status and the message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApiError {
    pub status: u16,
    pub message: String,
}

impl ApiError {
    pub fn bad(message: impl Into<String>) -> ApiError {
        ApiError { status: 400, message: message.into() }
    }

    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError { status: 404, message: message.into() }
    }

    pub fn json(&self) -> String {
        json!({ "error": self.message }).to_string()
    }
}

/// Longest query string accepted, in bytes.
pub const MAX_QUERY: usize = 8192;
/// Longest line accepted, in moves.
pub const MAX_LINE: usize = 400;

/// Known values of positions, from an opening book or proofs.
#[derive(Clone, Debug, Default)]
pub struct Known {
    /// Search scores (side to move's view), by position key.
    pub scores: HashMap<u64, Score>,
    /// Proven values (side to move's view) with where they come from.
    pub exact: HashMap<u64, (String, &'static str)>,
}

/// Everything the server answers from.
pub struct Explorer {
    index: Index,
    tables: Option<Arc<Tablebase>>,
    known: Known,
    eval: Option<EvalSpec>,
    /// Scores searched on demand (`eval_nodes` each), by position key.
    searched: Mutex<HashMap<u64, Score>>,
    eval_nodes: u64,
    /// Exact values from the oracle, where the tables do not reach.
    settler: Option<Arc<Settler>>,
}

/// An exact value as the API shows it (side to move's view).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct ExactView {
    text: Option<String>,
    source: Option<&'static str>,
    /// Asked of the oracle and not settled yet: the page asks again.
    pending: bool,
}

/// The query's parameters, decoded.
pub fn params(query: &str) -> Result<HashMap<String, String>, ApiError> {
    if query.len() > MAX_QUERY {
        return Err(ApiError { status: 414, message: format!("query of {} bytes; at most {MAX_QUERY}", query.len()) });
    }
    let mut out = HashMap::new();
    for (k, v) in form_urlencoded::parse(query.as_bytes()) {
        if out.insert(k.to_string(), v.to_string()).is_some() {
            return Err(ApiError::bad(format!("parameter {k:?} given twice")));
        }
    }
    Ok(out)
}

impl Explorer {
    pub fn new(
        index: Index,
        tables: Option<Arc<Tablebase>>,
        known: Known,
        eval: Option<EvalSpec>,
        eval_nodes: u64,
    ) -> Explorer {
        Explorer { index, tables, known, eval, searched: Mutex::new(HashMap::new()), eval_nodes, settler: None }
    }

    /// Exact values from the oracle behind `settler` for positions the
    /// tables do not cover (see [`crate::settle`]).
    pub fn with_oracle(mut self, settler: Arc<Settler>) -> Explorer {
        self.settler = Some(settler);
        self
    }

    pub fn index(&self) -> &Index {
        &self.index
    }

    fn rules(&self) -> RuleSet {
        self.index.rules()
    }

    /// The position a query names (`moves=` from the start, or
    /// `position=`), with the line that reaches it when given by moves.
    pub fn locate(&self, params: &HashMap<String, String>) -> Result<(Position, Vec<Move>), ApiError> {
        let rules = self.rules();
        match (params.get("moves"), params.get("position")) {
            (Some(_), Some(_)) => Err(ApiError::bad("give moves= or position=, not both")),
            (None, Some(text)) => {
                let pos: Position =
                    text.parse().map_err(|e: alq_engine::PositionError| ApiError::bad(e.to_string()))?;
                Ok((pos, Vec::new()))
            }
            (moves, None) => {
                let mut game = Game::new(
                    Position::start_of(rules),
                    GameConfig { no_progress_limit: None, max_plies: None, rules },
                );
                let words: Vec<&str> =
                    moves.map(|m| m.split([' ', '+', ',']).filter(|w| !w.is_empty()).collect()).unwrap_or_default();
                if words.len() > MAX_LINE {
                    return Err(ApiError::bad(format!("a line of {} moves; at most {MAX_LINE}", words.len())));
                }
                for (i, w) in words.iter().enumerate() {
                    game.play_text(w).map_err(|e| ApiError::bad(format!("move {}: {e}", i + 1)))?;
                }
                Ok((game.position(), game.moves().to_vec()))
            }
        }
    }

    /// The exact values of `positions` (side to move's view): the tables',
    /// else the oracle's where it settles more than a book or proof says,
    /// else the book's or proofs'.
    fn exact_views(&self, positions: &[Position]) -> Vec<ExactView> {
        let first: Vec<Option<(String, &'static str)>> = positions.iter().map(|p| self.exact(p)).collect();
        let asked: Vec<usize> = (0..positions.len())
            .filter(|&i| first[i].as_ref().is_none_or(|(text, _)| text.contains(['≥', '≤'])))
            .collect();
        let answers = match &self.settler {
            Some(s) if !asked.is_empty() => s.values(&asked.iter().map(|&i| positions[i]).collect::<Vec<_>>()),
            _ => Vec::new(),
        };
        let mut views: Vec<ExactView> = first
            .into_iter()
            .map(|e| ExactView { text: e.as_ref().map(|x| x.0.clone()), source: e.map(|x| x.1), pending: false })
            .collect();
        for (&i, answer) in asked.iter().zip(answers) {
            match answer {
                Lookup::Pending => views[i].pending = true,
                Lookup::Answer(v, source) => {
                    let better = match v {
                        Value::Unknown => views[i].text.is_none(),
                        Value::AtLeastDraw | Value::AtMostDraw => views[i].text.is_none(),
                        _ => true,
                    };
                    if better {
                        views[i] = ExactView {
                            text: Some(oracle_text(v).to_string()),
                            source: Some(source.name()),
                            pending: false,
                        };
                    }
                }
            }
        }
        views
    }

    /// The exact value of `pos` (side to move's view) and its source.
    fn exact(&self, pos: &Position) -> Option<(String, &'static str)> {
        if let Some(tb) = &self.tables {
            let pieces = pos.occupied().count();
            if tb.rules() == self.rules() && pieces <= tb.max_pieces() {
                let distance = tb.coverage(Kind::Distance).is_some_and(|n| pieces <= n);
                let value = if distance {
                    tb.probe(pos).ok().map(|v| v.to_string())
                } else {
                    tb.probe_wdl(pos).ok().map(|(v, _)| wdl_text(v).to_string())
                };
                if let Some(v) = value {
                    return Some((v, "tables"));
                }
            }
        }
        self.known.exact.get(&pos.key()).cloned()
    }

    /// The search score of `pos` (side to move's view): the book's, else a
    /// search of `eval_nodes` nodes (cached) when an evaluator is given.
    fn score(&self, pos: &Position) -> Option<Score> {
        let k = pos.key();
        if let Some(s) = self.known.scores.get(&k) {
            return Some(*s);
        }
        let spec = self.eval.as_ref()?;
        if let Some(s) = self.searched.lock().unwrap_or_else(|e| e.into_inner()).get(&k) {
            return Some(*s);
        }
        if pos.is_lost_in(self.rules()) {
            return Some(Score::Loss(0));
        }
        let mut searcher = Searcher::new(spec.build(), SearchConfig { hash_mb: 1 });
        searcher.set_tables(self.tables.clone().map(|t| t as Arc<dyn alq_engine::EndgameTables>));
        let game = Game::new(*pos, GameConfig::with_rules(self.rules()));
        let score = searcher.search(&game, Limits::nodes(self.eval_nodes), |_| {}).score;
        self.searched.lock().unwrap_or_else(|e| e.into_inner()).insert(k, score);
        Some(score)
    }

    /// `GET /api/explorer`.
    pub fn explorer(&self, query: &str) -> Result<Json, ApiError> {
        let (pos, line) = self.locate(&params(query)?)?;
        let rules = self.rules();
        let totals = self.index.position(&pos);
        let legal = pos.legal_moves_in(rules);
        let mut positions = vec![pos];
        positions.extend(legal.iter().map(|&mv| pos.play(mv)));
        let mut views = self.exact_views(&positions).into_iter();
        let exact = views.next().unwrap_or_default();
        let pending = usize::from(exact.pending) + views.clone().filter(|v| v.pending).count();
        let narrowness = narrowness(exact.text.as_deref(), views.clone().map(|v| v.text));
        let mut moves = Vec::new();
        for (&mv, view) in legal.iter().zip(views) {
            let child = pos.play(mv);
            let counts = self.index.edge(&pos, &child);
            // Mover's view: the child's values turned round.
            let view = ExactView { text: view.text.map(|t| mover_text(&t)), ..view };
            let score = self.score(&child).map(|s| s.negate().to_string());
            if counts.games() == 0 && view.text.is_none() && !view.pending && score.is_none() {
                continue;
            }
            moves.push((mv, counts, view, score));
        }
        moves.sort_by(|a, b| b.1.games().cmp(&a.1.games()).then_with(|| a.0.to_string().cmp(&b.0.to_string())));
        Ok(json!({
            "position": pos.to_string(),
            "side_to_move": side_name(&pos),
            "line": line.iter().map(|m| m.to_string()).collect::<Vec<_>>(),
            "white": totals.white,
            "draws": totals.draws,
            "black": totals.black,
            "games": totals.games(),
            "average_plies": average(&totals),
            "exact": exact.text,
            "exact_source": exact.source,
            "exact_pending": pending,
            "keeping_moves": narrowness,
            "score": self.score(&pos).map(|s| s.to_string()),
            "legal": legal.iter().map(move_json).collect::<Vec<_>>(),
            "moves": moves.iter().map(|(m, c, e, s)| json!({
                "move": m.to_string(),
                "white": c.white,
                "draws": c.draws,
                "black": c.black,
                "games": c.games(),
                "average_plies": average(c),
                "exact": e.text,
                "exact_source": e.source,
                "exact_pending": e.pending,
                "score": s,
            })).collect::<Vec<_>>(),
        }))
    }

    /// `GET /api/tablebase`.
    pub fn tablebase(&self, query: &str) -> Result<Json, ApiError> {
        let (pos, _) = self.locate(&params(query)?)?;
        let Some(tb) = &self.tables else {
            return Err(ApiError::not_found("no endgame tables: start the server with --tb DIR"));
        };
        let pieces = pos.occupied().count();
        if pieces > tb.max_pieces() {
            return Err(ApiError::not_found(format!(
                "{pos}: {pieces} pieces, the tables cover at most {}",
                tb.max_pieces()
            )));
        }
        let distance = tb.coverage(Kind::Distance).is_some_and(|n| pieces <= n);
        let fail = |e: alq_tablebase::TbError| ApiError { status: 500, message: format!("probing {pos}: {e}") };
        let (value, moves): (String, Vec<(Move, String)>) = if distance {
            let v = tb.probe(&pos).map_err(fail)?;
            let m = tb.probe_moves(&pos).map_err(fail)?;
            (v.to_string(), m.into_iter().map(|(m, v)| (m, v.to_string())).collect())
        } else {
            let (v, _) = tb.probe_wdl(&pos).map_err(fail)?;
            let m = tb.probe_moves_wdl(&pos).map_err(fail)?;
            (wdl_text(v).to_string(), m.into_iter().map(|(m, v)| (m, wdl_text(v).to_string())).collect())
        };
        Ok(json!({
            "position": pos.to_string(),
            "value": value,
            "moves": moves.iter().map(|(m, v)| json!({"move": m.to_string(), "value": v})).collect::<Vec<_>>(),
        }))
    }

    /// `GET /api/eval`: a search whose iterations arrive as server-sent
    /// events on the returned channel, until `depth`; setting the returned
    /// flag (the client went away) stops it.
    pub fn eval(&self, query: &str) -> Result<(Receiver<String>, Arc<AtomicBool>), ApiError> {
        let p = params(query)?;
        let depth = match p.get("depth") {
            None => 30,
            Some(d) => d
                .parse::<u32>()
                .ok()
                .filter(|d| (1..=60).contains(d))
                .ok_or_else(|| ApiError::bad(format!("depth {d:?}: expected 1 to 60")))?,
        };
        let (pos, line) = self.locate(&p)?;
        let Some(spec) = self.eval.clone() else {
            return Err(ApiError::not_found("no evaluator: start the server with --eval nn|hce|FILE"));
        };
        let rules = self.rules();
        let tables = self.tables.clone();
        let (tx, rx) = mpsc::sync_channel::<String>(64);
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        std::thread::spawn(move || {
            let mut game = Game::new(Position::start_of(rules), GameConfig::with_rules(rules));
            if line.is_empty() {
                game = Game::new(pos, GameConfig::with_rules(rules));
            } else {
                for m in &line {
                    let _ = game.play(*m);
                }
            }
            let mut searcher = Searcher::new(spec.build(), SearchConfig { hash_mb: 64 });
            searcher.set_tables(tables.map(|t| t as Arc<dyn alq_engine::EndgameTables>));
            searcher.set_stop_flag(Some(Arc::clone(&flag)));
            let result = searcher.search(&game, Limits::depth(depth), |it| {
                let data = json!({
                    "depth": it.depth,
                    "score": it.score.to_string(),
                    "nodes": it.nodes,
                    "nps": (it.nodes as f64 / it.elapsed.as_secs_f64().max(1e-6)) as u64,
                    "time_ms": it.elapsed.as_millis() as u64,
                    "pv": it.pv.iter().map(|m| m.to_string()).collect::<Vec<_>>(),
                });
                if tx.send(format!("data: {data}\n\n")).is_err() {
                    flag.store(true, Ordering::Relaxed);
                }
            });
            let best = json!({ "move": result.best.map(|m| m.to_string()) });
            let _ = tx.send(format!("event: bestmove\ndata: {best}\n\n"));
        });
        Ok((rx, stop))
    }
}

fn side_name(pos: &Position) -> &'static str {
    match pos.side_to_move() {
        alq_engine::Side::White => "white",
        alq_engine::Side::Black => "black",
    }
}

/// How many of the legal moves keep the position's exact value (the
/// narrowness of a won or drawn position), when the position's value and
/// every move's are known exactly; `children` are the values of the
/// positions after the moves, their mover's view.
fn narrowness(value: Option<&str>, children: impl Iterator<Item = Option<String>>) -> Option<usize> {
    let kind = |t: &str| t.split_whitespace().next().map(str::to_string);
    let own = kind(value?)?;
    if own != "win" && own != "draw" {
        return None;
    }
    let mut keep = 0;
    for child in children {
        let mine = kind(&mover_text(&child?))?;
        if !["win", "draw", "loss"].contains(&mine.as_str()) {
            return None;
        }
        keep += usize::from(mine == own);
    }
    Some(keep)
}

fn average(c: &Counts) -> Option<f64> {
    (c.games() > 0).then(|| (c.average_plies() * 10.0).round() / 10.0)
}

/// The oracle's value as the explorer writes values.
fn oracle_text(v: Value) -> &'static str {
    match v {
        Value::Win => "win",
        Value::Draw => "draw",
        Value::Loss => "loss",
        Value::AtLeastDraw => "≥ draw",
        Value::AtMostDraw => "≤ draw",
        Value::Unknown => "unknown",
    }
}

fn wdl_text(v: Wdl) -> &'static str {
    match v {
        Wdl::Win => "win",
        Wdl::Draw => "draw",
        Wdl::Loss => "loss",
    }
}

/// A value text of the position after a move, turned to the mover's view
/// (`loss 7` after the move is `win 8` for the mover).
fn mover_text(text: &str) -> String {
    let mut words = text.split_whitespace();
    let kind = words.next().unwrap_or("");
    let plies: Option<u32> = words.next().and_then(|w| w.parse().ok());
    let exact = match (kind, plies) {
        ("win", Some(d)) => Some(Exact::Win(d)),
        ("loss", Some(d)) => Some(Exact::Loss(d)),
        ("draw", _) => Some(Exact::Draw),
        _ => None,
    };
    match exact {
        Some(e) => e.for_mover().to_string(),
        None => match text {
            "win" => "loss".to_string(),
            "loss" => "win".to_string(),
            "≥ draw" => "≤ draw".to_string(),
            "≤ draw" => "≥ draw".to_string(),
            other => other.to_string(),
        },
    }
}

fn move_json(m: &Move) -> Json {
    json!({
        "move": m.to_string(),
        "from": m.from().to_string(),
        "to": m.to().to_string(),
        "path": m.landings().map(|p| p.to_string()).collect::<Vec<_>>(),
        "captured": m.captured().into_iter().map(|p| p.to_string()).collect::<Vec<_>>(),
    })
}
