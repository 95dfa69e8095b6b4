//! Players: a searcher with an evaluator and limits, or the random and
//! greedy baselines, described by a text spec such as `hce@nodes=500`.

use std::fmt;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use rand::seq::SliceRandom;
use rand::Rng;
use thiserror::Error;

use alq_engine::{
    EndgameTables, Evaluator, Exact, Game, Hce, HceWeights, Limits, Move, Network, NnEvaluator, Score, SearchConfig, Searcher, Side,
};

/// A spec that could not be read.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("player {spec:?}: {problem}")]
pub struct SpecError {
    pub spec: String,
    pub problem: String,
}

/// Which evaluator a searching player uses.
#[derive(Clone, Debug, PartialEq)]
pub enum EvalSpec {
    Hce(HceWeights),
    /// A value network (the shipped default, or one read from a file).
    Network(Arc<Network>),
}

impl EvalSpec {
    /// Reads an evaluator: `hce`, or `hce@name=value,...` with handcrafted
    /// weights by name.
    pub fn parse(spec: &str) -> Result<EvalSpec, SpecError> {
        let (name, params) = spec.trim().split_once('@').unwrap_or((spec.trim(), ""));
        let pairs: Vec<&str> = params.split(',').filter(|p| !p.trim().is_empty()).collect();
        Self::from_parts(spec, name, &pairs)
    }

    /// An evaluator from its name and `key=value` settings.
    fn from_parts(spec: &str, name: &str, pairs: &[&str]) -> Result<EvalSpec, SpecError> {
        let err = |problem: String| SpecError { spec: spec.to_string(), problem };
        match name {
            "hce" => {
                let mut weights = HceWeights::default();
                for pair in pairs {
                    let (key, value) =
                        pair.split_once('=').ok_or_else(|| err(format!("expected key=value, found {pair:?}")))?;
                    let (key, value) = (key.trim(), value.trim());
                    let v = value.parse::<i32>().map_err(|_| err(format!("{key}: {value:?} is not an integer")))?;
                    weights.set(key, v).map_err(err)?;
                }
                Ok(EvalSpec::Hce(weights))
            }
            "nn" | "" if !pairs.is_empty() => Err(err(format!("a network takes no settings, found {:?}", pairs[0]))),
            "nn" => Ok(EvalSpec::Network(crate::default_network().map_err(|e| err(e.to_string()))?)),
            path if path.ends_with(".alqnet") || Path::new(path).is_file() => {
                if !pairs.is_empty() {
                    return Err(err(format!("a network takes no settings, found {:?}", pairs[0])));
                }
                let bytes = std::fs::read(path).map_err(|e| err(format!("cannot read network file {path}: {e}")))?;
                let net = Network::from_bytes(&bytes).map_err(|e| err(format!("network file {path}: {e}")))?;
                Ok(EvalSpec::Network(Arc::new(net)))
            }
            other => Err(err(format!("unknown evaluator {other:?}: expected hce, nn or a network file (.alqnet)"))),
        }
    }

    /// A short description: `hce`, `hce[weights]` or `nn:<network id>`.
    pub fn describe(&self) -> String {
        match self {
            EvalSpec::Hce(w) if *w == HceWeights::default() => "hce".to_string(),
            EvalSpec::Hce(w) => format!("hce[{}]", w.describe()),
            EvalSpec::Network(net) => format!("nn:{}", net.id()),
        }
    }

    pub fn build(&self) -> Box<dyn Evaluator> {
        match self {
            EvalSpec::Hce(w) => Box::new(Hce::new(*w)),
            EvalSpec::Network(net) => Box::new(NnEvaluator::new(net.clone())),
        }
    }
}

/// Endgame tables a player uses: the folder as given, and the tables, read
/// once per process and shared by every player naming the same folder.
#[derive(Clone)]
pub struct TablesSpec {
    pub dir: String,
    pub tables: Arc<dyn EndgameTables>,
}

impl TablesSpec {
    /// Opens the tablebase in `dir` (see `alq tb build`).
    pub fn open(dir: &str) -> Result<TablesSpec, String> {
        let tb = alq_tablebase::Tablebase::shared(Path::new(dir)).map_err(|e| format!("tablebase {dir}: {e}"))?;
        Ok(TablesSpec { dir: dir.to_string(), tables: tb })
    }

    /// Every position with at most this many pieces is covered.
    pub fn max_pieces(&self) -> u32 {
        self.tables.max_pieces()
    }

    /// The exact value of `pos` from White's view, when the tables cover it.
    pub fn white_value(&self, pos: &alq_engine::Position) -> Option<Exact> {
        if !self.tables.covers(pos) {
            return None;
        }
        let value = self.tables.probe(pos)?;
        Some(match (pos.side_to_move(), value) {
            (Side::White, v) | (Side::Black, v @ Exact::Draw) => v,
            (Side::Black, Exact::Win(d)) => Exact::Loss(d),
            (Side::Black, Exact::Loss(d)) => Exact::Win(d),
        })
    }

    /// Where the game first reached a position the tables cover: the ply
    /// (0: its start) and White's exact value there.
    pub fn entry(&self, game: &Game) -> Option<(u32, Exact)> {
        game.positions().iter().enumerate().find_map(|(ply, pos)| Some((ply as u32, self.white_value(pos)?)))
    }

    /// The record of `game` with its table entry set, if it has one.
    pub fn mark_entry(&self, game: &Game, record: alq_records::GameRecord) -> alq_records::GameRecord {
        match self.entry(game) {
            Some((ply, value)) => record.with_table_entry(ply, value),
            None => record,
        }
    }

    /// A best move by the tables in the game's current position (fastest
    /// win, else a draw, else the slowest loss; ties drawn with `rng`), with
    /// its exact value as a score, when the tables cover every move.
    pub fn best_move(&self, game: &Game, rng: &mut impl Rng) -> Option<Choice> {
        let ranked = self.tables.rank_moves(&game.position())?;
        let best = ranked[0].1;
        let ties: Vec<Move> = ranked.iter().take_while(|(_, v)| *v == best).map(|(m, _)| *m).collect();
        ties.choose(rng).map(|&mv| Choice { mv, score: Some(Score::from_exact(best)) })
    }
}

impl fmt::Debug for TablesSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TablesSpec({})", self.tables.describe())
    }
}

impl PartialEq for TablesSpec {
    fn eq(&self, other: &TablesSpec) -> bool {
        self.dir == other.dir
    }
}

/// What kind of player.
#[derive(Clone, Debug, PartialEq)]
pub enum PlayerKind {
    /// A uniformly random legal move.
    Random,
    /// One ply greedy for material: a move that wins at once, else the
    /// capture that takes the most pieces, else any move; ties at random.
    Greedy,
    /// Alpha-beta search with an evaluator.
    Search(EvalSpec),
}

/// A player and its limits, e.g. `hce@nodes=2000` or `random`.
#[derive(Clone, Debug, PartialEq)]
pub struct PlayerSpec {
    pub kind: PlayerKind,
    pub limits: Limits,
    /// Transposition table size in MiB.
    pub hash_mb: usize,
    /// Endgame tables: the search uses them, and in positions whose moves
    /// they all cover the player plays a best move by the tables.
    pub tables: Option<TablesSpec>,
}

impl PlayerSpec {
    /// Reads `NAME[@key=value,...]`. NAME is `hce`, `nn` (the shipped
    /// network), a network file (`.alqnet`), `random` or `greedy`.
    /// Keys: `nodes`, `depth`, `movetime` (ms), `hash` (MiB), `tb` (a
    /// tablebase folder), and for `hce` any handcrafted weight by name. `default_limits` applies when the spec
    /// names no limit of its own.
    pub fn parse(spec: &str, default_limits: Limits) -> Result<PlayerSpec, SpecError> {
        let err = |problem: String| SpecError { spec: spec.to_string(), problem };
        let (name, params) = spec.trim().split_once('@').unwrap_or((spec.trim(), ""));
        let mut limits = Limits::default();
        let mut hash_mb = 16;
        let mut tables = None;
        let mut eval_pairs = Vec::new();
        for pair in params.split(',').filter(|p| !p.trim().is_empty()) {
            let (key, value) = pair.split_once('=').ok_or_else(|| err(format!("expected key=value, found {pair:?}")))?;
            let (key, value) = (key.trim(), value.trim());
            let number = || value.parse::<u64>().map_err(|_| err(format!("{key}: {value:?} is not a whole number")));
            match key {
                "nodes" => limits.nodes = Some(number()?.max(1)),
                "depth" => limits.depth = Some(number()?.clamp(1, 100) as u32),
                "movetime" => limits.movetime = Some(Duration::from_millis(number()?.max(1))),
                "hash" => hash_mb = number()?.clamp(1, 65536) as usize,
                "tb" => tables = Some(TablesSpec::open(value).map_err(err)?),
                _ => eval_pairs.push(pair),
            }
        }
        let kind = match name {
            "random" | "greedy" if !eval_pairs.is_empty() => {
                return Err(err(format!("unknown key in {:?} (known: nodes, depth, movetime, hash, tb)", eval_pairs[0])))
            }
            "random" => PlayerKind::Random,
            "greedy" => PlayerKind::Greedy,
            _ => PlayerKind::Search(EvalSpec::from_parts(spec, name, &eval_pairs).map_err(|e| {
                err(format!("{} (players: hce, random, greedy; limits: nodes, depth, movetime, hash)", e.problem))
            })?),
        };
        if limits == Limits::default() {
            limits = default_limits;
        }
        if matches!(kind, PlayerKind::Search(_)) && limits == Limits::default() {
            return Err(err("a searching player needs a limit (nodes, depth or movetime)".to_string()));
        }
        Ok(PlayerSpec { kind, limits, hash_mb, tables })
    }

    /// The same player with these tables (a run's or a match's `--tb`),
    /// unless it names its own.
    pub fn with_tables(mut self, tables: Option<&TablesSpec>) -> PlayerSpec {
        if self.tables.is_none() {
            self.tables = tables.cloned();
        }
        self
    }

    /// A fresh player for one game (its search tables start empty).
    pub fn build(&self) -> Player {
        let searcher = match &self.kind {
            PlayerKind::Search(eval) => {
                let mut searcher = Searcher::new(eval.build(), SearchConfig { hash_mb: self.hash_mb });
                searcher.set_tables(self.tables.as_ref().map(|t| Arc::clone(&t.tables)));
                Some(searcher)
            }
            _ => None,
        };
        Player { spec: self.clone(), searcher }
    }
}

impl fmt::Display for PlayerSpec {
    /// The spec in the form [`PlayerSpec::parse`] reads, limits included.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            PlayerKind::Random => f.write_str("random")?,
            PlayerKind::Greedy => f.write_str("greedy")?,
            PlayerKind::Search(EvalSpec::Hce(w)) => {
                write!(f, "hce@{}", self.limits)?;
                if *w != HceWeights::default() {
                    write!(f, ",{}", w.describe())?;
                }
            }
            PlayerKind::Search(net @ EvalSpec::Network(_)) => write!(f, "{}@{}", net.describe(), self.limits)?,
        }
        if let Some(t) = &self.tables {
            let sep = if matches!(self.kind, PlayerKind::Random | PlayerKind::Greedy) { '@' } else { ',' };
            write!(f, "{sep}tb={}", t.dir)?;
        }
        Ok(())
    }
}

/// A player's decision.
#[derive(Clone, Copy, Debug)]
pub struct Choice {
    pub mv: Move,
    /// The search's score, mover's view (none for the baselines).
    pub score: Option<Score>,
}

/// A player ready to choose moves in one game.
pub struct Player {
    spec: PlayerSpec,
    searcher: Option<Searcher<Box<dyn Evaluator>>>,
}

impl Player {
    pub fn spec(&self) -> &PlayerSpec {
        &self.spec
    }

    /// Chooses a move in `game`'s current position; `None` when there is none.
    pub fn choose(&mut self, game: &Game, rng: &mut impl Rng) -> Option<Choice> {
        let pos = game.position();
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return None;
        }
        if let Some(choice) = self.spec.tables.as_ref().and_then(|t| t.best_move(game, rng)) {
            return Some(choice);
        }
        match self.spec.kind {
            PlayerKind::Random => moves.choose(rng).map(|&mv| Choice { mv, score: None }),
            PlayerKind::Greedy => {
                // Greedy for material: the move that wins at once, else the
                // one that captures most; ties at random.
                let value = |mv: &Move| if pos.play(*mv).is_lost() { u32::MAX } else { mv.jumps() as u32 };
                let best = moves.iter().map(value).max()?;
                let ties: Vec<Move> = moves.iter().copied().filter(|m| value(m) == best).collect();
                ties.choose(rng).map(|&mv| Choice { mv, score: None })
            }
            PlayerKind::Search(_) => {
                let searcher = self.searcher.as_mut()?;
                let result = searcher.search(game, self.spec.limits, |_| {});
                result.best.map(|mv| Choice { mv, score: Some(result.score) })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_and_print() {
        let d = Limits::nodes(1000);
        let p = PlayerSpec::parse("hce@nodes=500", d).unwrap();
        assert_eq!(p.limits, Limits::nodes(500));
        assert_eq!(p.to_string(), "hce@nodes=500");
        assert_eq!(PlayerSpec::parse("hce", d).unwrap().limits, d);
        let w = PlayerSpec::parse("hce@depth=4,mobility=9", d).unwrap();
        assert_eq!(w.to_string(), format!("hce@depth=4,{}", {
            let mut x = HceWeights::default();
            x.set("mobility", 9).unwrap();
            x.describe()
        }));
        assert_eq!(PlayerSpec::parse("random", d).unwrap().kind, PlayerKind::Random);
        for bad in ["hce@nodes=x", "hce@bogus=1", "alphazero", "greedy@mobility=3", "hce@nodes"] {
            assert!(PlayerSpec::parse(bad, d).is_err(), "{bad}");
        }
        assert!(PlayerSpec::parse("hce", Limits::default()).is_err());
    }
}
