//! Players: a searcher with an evaluator and limits, the random and greedy
//! baselines, or an external engine (a program speaking the `alq engine`
//! protocol), described by a text spec such as `hce@nodes=500` or
//! `engine:python3 bot.py@movetime=100`.

use std::fmt;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rand::seq::SliceRandom;
use rand::Rng;
use thiserror::Error;

use alq_engine::{
    time_for_move, EndgameTables, Evaluator, Exact, Game, Hce, HceWeights, Limits, Move, Network, NnEvaluator, RuleSet,
    Score, SearchConfig, Searcher, Side,
};

use crate::choice::Choice;
use crate::external::{EngineProcess, Forfeit};
use crate::perfect::{Perfect, PerfectSettings, DEFAULT_MOVETIME};

/// A spec that could not be read.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("player {spec:?}: {problem}")]
pub struct SpecError {
    pub spec: String,
    pub problem: String,
}

/// Why an evaluator, tables or a time control cannot be used.
#[derive(Debug, Error)]
pub enum SetupError {
    #[error("the network {network} was trained for the {trained} rules, not {wanted}")]
    NetworkRules { network: String, trained: RuleSet, wanted: RuleSet },
    #[error("tablebase {dir}: {source}")]
    Tables { dir: String, source: alq_tablebase::TbError },
    #[error("the tables in {dir} were built for the {built} rules, not {wanted}")]
    TablesRules { dir: String, built: RuleSet, wanted: RuleSet },
    #[error("time control {text:?}: {problem}")]
    TimeControl { text: String, problem: String },
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
                    weights.set(key, v).map_err(|e| err(e.to_string()))?;
                }
                Ok(EvalSpec::Hce(weights))
            }
            "" if !pairs.is_empty() => Err(err(format!("an evaluator name comes before its settings {:?}", pairs[0]))),
            "nn" => {
                let net = alq_engine::default_network().map_err(|e| err(e.to_string()))?;
                Ok(EvalSpec::Network(with_heads(net, pairs).map_err(err)?))
            }
            path if path.ends_with(".alqnet") || Path::new(path).is_file() => {
                let bytes = std::fs::read(path).map_err(|e| err(format!("cannot read network file {path}: {e}")))?;
                let net = Network::from_bytes(&bytes).map_err(|e| err(format!("network file {path}: {e}")))?;
                Ok(EvalSpec::Network(with_heads(Arc::new(net), pairs).map_err(err)?))
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

    /// The rule set a network was trained for; `None` for the handcrafted
    /// evaluator, which follows the game's rules.
    pub fn rules(&self) -> Option<RuleSet> {
        match self {
            EvalSpec::Hce(_) => None,
            EvalSpec::Network(net) => Some(net.rules),
        }
    }

    /// Refuses a network trained for other rules than `rules`.
    pub fn check_rules(&self, rules: RuleSet) -> Result<(), SetupError> {
        match self.rules() {
            Some(own) if own != rules => {
                Err(SetupError::NetworkRules { network: self.describe(), trained: own, wanted: rules })
            }
            _ => Ok(()),
        }
    }

    pub fn build(&self) -> Box<dyn Evaluator> {
        match self {
            EvalSpec::Hce(w) => Box::new(Hce::new(*w)),
            EvalSpec::Network(net) => Box::new(NnEvaluator::new(net.clone())),
        }
    }
}

/// A network's only setting, `heads=`: which of its extra heads the search
/// uses: `all` (the default), `exact`, `policy` or `value` (none: the value
/// network alone). The heads left out are dropped from the network, so its
/// id names what plays.
fn with_heads(net: Arc<Network>, pairs: &[&str]) -> Result<Arc<Network>, String> {
    let mut heads = "all";
    for pair in pairs {
        match pair.split_once('=').map(|(k, v)| (k.trim(), v.trim())) {
            Some(("heads", value)) => heads = value,
            _ => return Err(format!("a network's only setting is heads=all|exact|policy|value, found {pair:?}")),
        }
    }
    let (exact, policy) = match heads {
        "all" => (true, true),
        "exact" => (true, false),
        "policy" => (false, true),
        "value" => (false, false),
        other => return Err(format!("heads={other}: expected all, exact, policy or value")),
    };
    if (exact || net.heads.exact.is_none()) && (policy || net.heads.policy.is_none()) {
        return Ok(net);
    }
    let mut net = (*net).clone();
    if !exact {
        net.heads.exact = None;
    }
    if !policy {
        net.heads.policy = None;
    }
    Ok(Arc::new(net))
}

/// Endgame tables a player uses: the folder as given, and the tables, read
/// once per process and shared by every player naming the same folder.
#[derive(Clone)]
pub struct TablesSpec {
    pub dir: String,
    pub tables: Arc<dyn EndgameTables>,
    /// The same folder when it holds distance-to-progress tables (`alq tb
    /// build --kind dtz`): best moves then keep wins under the 60-ply rule.
    rule: Option<Arc<alq_tablebase::Tablebase>>,
}

impl TablesSpec {
    /// Opens the tablebase in `dir` (see `alq tb build`).
    pub fn open(dir: &str) -> Result<TablesSpec, SetupError> {
        let tb = alq_tablebase::Tablebase::shared(Path::new(dir))
            .map_err(|source| SetupError::Tables { dir: dir.to_string(), source })?;
        let rule = tb.coverage(alq_tablebase::Kind::Dtz).is_some().then(|| Arc::clone(&tb));
        Ok(TablesSpec { dir: dir.to_string(), tables: tb, rule })
    }

    /// Refuses tables built for other rules than `rules`.
    pub fn check_rules(&self, rules: RuleSet) -> Result<(), SetupError> {
        let own = self.tables.rules();
        if own != rules {
            return Err(SetupError::TablesRules { dir: self.dir.clone(), built: own, wanted: rules });
        }
        Ok(())
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
    ///
    /// Where the folder holds distance-to-progress tables covering every move
    /// and the game plays the 60-ply no-progress rule, the moves are ranked
    /// by their values under the rule at the game's count instead: a win the
    /// rule allows with the fewest plies to the next capture or forward
    /// move, then a cursed win, a draw, a blessed loss, the loss with the
    /// most plies to progress (the score stays the infinite game's value).
    pub fn best_move(&self, game: &Game, rng: &mut impl Rng) -> Option<Choice> {
        if self.tables.rules() != game.rules() {
            return None;
        }
        let ranked = self.tables.rank_moves(&game.position())?;
        if let Some(choice) = self.rule_best_move(game, &ranked, rng) {
            return Some(choice);
        }
        let best = ranked[0].1;
        let ties: Vec<Move> = ranked.iter().take_while(|(_, v)| *v == best).map(|(m, _)| *m).collect();
        ties.choose(rng).map(|&mv| Choice { mv, score: Some(Score::from_exact(best)) })
    }

    /// [`TablesSpec::best_move`] under the rule; `None` where it does not apply.
    fn rule_best_move(&self, game: &Game, ranked: &[(Move, Exact)], rng: &mut impl Rng) -> Option<Choice> {
        let tb = self.rule.as_ref()?;
        let mut valued = Vec::with_capacity(ranked.len());
        for &(mv, exact) in ranked {
            valued.push((mv, exact, crate::perfect::rule_value_of(tb, game, mv)?.preference()));
        }
        let best = valued.iter().map(|v| v.2).max()?;
        // Ties by the infinite game's ranking (`ranked` is best first), then at random.
        let first = valued.iter().find(|v| v.2 == best)?.1;
        let ties: Vec<&(Move, Exact, i64)> = valued.iter().filter(|v| v.2 == best && v.1 == first).collect();
        ties.choose(rng).map(|&&(mv, exact, _)| Choice { mv, score: Some(Score::from_exact(exact)) })
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
    /// An external engine: a shell command started for each game, and the
    /// options set on it (`setoption name N value V`).
    Engine { command: String, options: Vec<(String, String)> },
    /// Perfect play where the oracle knows the value (see [`crate::perfect`]).
    Perfect(PerfectSettings),
}

/// A chess-clock time control: `base` for the game, `increment` added after
/// each move (`10+0.1`: ten seconds plus a tenth per move).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeControl {
    pub base: Duration,
    pub increment: Duration,
}

impl TimeControl {
    /// Reads `BASE[+INC]` in seconds, e.g. `10+0.1` or `60`.
    pub fn parse(text: &str) -> Result<TimeControl, SetupError> {
        let bad = || SetupError::TimeControl {
            text: text.to_string(),
            problem: "expected BASE+INC in seconds, e.g. 10+0.1".into(),
        };
        let (base, inc) = text.trim().split_once('+').unwrap_or((text.trim(), "0"));
        let seconds = |t: &str| -> Result<Duration, SetupError> {
            let v: f64 = t.trim().parse().map_err(|_| bad())?;
            if !(v.is_finite() && (0.0..=86_400.0).contains(&v)) {
                return Err(bad());
            }
            Ok(Duration::from_secs_f64(v))
        };
        let tc = TimeControl { base: seconds(base)?, increment: seconds(inc)? };
        if tc.base.is_zero() {
            return Err(SetupError::TimeControl {
                text: text.to_string(),
                problem: "the base time must be positive".into(),
            });
        }
        Ok(tc)
    }
}

impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}+{}", self.base.as_secs_f64(), self.increment.as_secs_f64())
    }
}

/// Both players' clocks during a game.
#[derive(Clone, Copy, Debug)]
pub struct Clock {
    /// Time left, White's first.
    pub remaining: [Duration; 2],
    pub increment: Duration,
}

impl Clock {
    pub fn new(tc: TimeControl) -> Clock {
        Clock { remaining: [tc.base; 2], increment: tc.increment }
    }
}

/// How long an external engine may take for a move when no clock or move
/// time bounds it.
pub const ENGINE_MOVE_TIMEOUT: Duration = Duration::from_secs(60);

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
    /// Search threads (Lazy SMP).
    pub threads: usize,
    /// Plays on this clock (a match's `--tc`): each move's time comes from
    /// it, beside any depth or node limit.
    pub clock: Option<TimeControl>,
}

impl PlayerSpec {
    /// Reads `NAME[@key=value,...]`. NAME is `hce`, `nn` (the shipped
    /// network), a network file (`.alqnet`), `random`, `greedy` or
    /// `perfect`. Keys: `nodes`, `depth`, `movetime` (ms), `hash` (MiB), `tb`
    /// (a tablebase folder), for `hce` any handcrafted weight by name, and
    /// for `perfect` `store` (the user's proven-position store) and `cert`
    /// (a certificate to follow); its `movetime` is the oracle's budget per
    /// position asked (default 500), `nodes` its fallback search's. `default_limits` applies when the spec
    /// names no limit of its own.
    pub fn parse(spec: &str, default_limits: Limits) -> Result<PlayerSpec, SpecError> {
        Self::parse_with_clock(spec, default_limits, None)
    }

    /// [`PlayerSpec::parse`] for a game on a clock: a searching player then
    /// needs no limit of its own. Also reads `engine:COMMAND[@key=value,...]`,
    /// an external engine: keys `nodes`, `depth` and `movetime` are its
    /// limits (sent with `go`), any other key is an engine option.
    pub fn parse_with_clock(
        spec: &str,
        default_limits: Limits,
        clock: Option<TimeControl>,
    ) -> Result<PlayerSpec, SpecError> {
        let err = |problem: String| SpecError { spec: spec.to_string(), problem };
        let trimmed = spec.trim();
        let (name, params) = if let Some(command) = trimmed.strip_prefix("engine:") {
            // Settings follow the last '@' when it is followed by key=value pairs.
            match command.rsplit_once('@') {
                Some((c, p)) if p.contains('=') => (c, p),
                _ => (command, ""),
            }
        } else {
            trimmed.split_once('@').unwrap_or((trimmed, ""))
        };
        let external = trimmed.starts_with("engine:");
        if external && name.trim().is_empty() {
            return Err(err("engine: needs a command, e.g. engine:python3 bot.py".to_string()));
        }
        let mut limits = Limits::default();
        let mut hash_mb = 16;
        let mut threads = 1;
        let mut tables = None;
        let mut eval_pairs = Vec::new();
        for pair in params.split(',').filter(|p| !p.trim().is_empty()) {
            let (key, value) =
                pair.split_once('=').ok_or_else(|| err(format!("expected key=value, found {pair:?}")))?;
            let (key, value) = (key.trim(), value.trim());
            let number = || value.parse::<u64>().map_err(|_| err(format!("{key}: {value:?} is not a whole number")));
            match key {
                "nodes" => limits.nodes = Some(number()?.max(1)),
                "depth" => limits.depth = Some(number()?.clamp(1, 100) as u32),
                "movetime" => limits.movetime = Some(Duration::from_millis(number()?.max(1))),
                _ if external => eval_pairs.push(pair),
                "hash" => hash_mb = number()?.clamp(1, 65536) as usize,
                "threads" => threads = number()?.clamp(1, 256) as usize,
                "tb" => tables = Some(TablesSpec::open(value).map_err(|e| err(e.to_string()))?),
                _ => eval_pairs.push(pair),
            }
        }
        let kind = match name {
            command if external => PlayerKind::Engine {
                command: command.trim().to_string(),
                options: eval_pairs
                    .iter()
                    .map(|p| p.split_once('=').map(|(k, v)| (k.trim().to_string(), v.trim().to_string())))
                    .collect::<Option<_>>()
                    .ok_or_else(|| err("engine options are key=value".to_string()))?,
            },
            "random" | "greedy" if !eval_pairs.is_empty() => {
                return Err(err(format!("unknown key in {:?} (known: nodes, depth, movetime, hash, threads, tb)", eval_pairs[0])))
            }
            "random" => PlayerKind::Random,
            "greedy" => PlayerKind::Greedy,
            "perfect" => {
                let mut settings = PerfectSettings::default();
                for pair in &eval_pairs {
                    let (key, value) = pair.split_once('=').map(|(k, v)| (k.trim(), v.trim())).unwrap_or((pair, ""));
                    match key {
                        "store" => {
                            let path = std::path::PathBuf::from(value);
                            if path.exists() {
                                alq_solver::ProvenStore::load(&path).map_err(|e| err(e.to_string()))?;
                            }
                            settings.store = Some(path);
                        }
                        "cert" => {
                            let path = std::path::PathBuf::from(value);
                            // Checked now (every step; its table leaves again
                            // over the player's tables when it is built), so a
                            // broken one is refused with the spec.
                            alq_solver::Certificate::read_checked(&path, None).map_err(|e| err(e.to_string()))?;
                            settings.certificate = Some(path);
                        }
                        "choice" => settings.choosing = value.parse().map_err(err)?,
                        "movecap" => {
                            let ms: u64 = value
                                .parse()
                                .ok()
                                .filter(|&ms| ms > 0)
                                .ok_or_else(|| err(format!("movecap {value:?} is not a whole number of milliseconds of at least 1")))?;
                            settings.move_cap = Some(Duration::from_millis(ms));
                        }
                        other => {
                            return Err(err(format!(
                                "unknown key {other:?} for perfect (known: tb, store, cert, choice, movetime, movecap, nodes, hash)"
                            )))
                        }
                    }
                }
                PlayerKind::Perfect(settings)
            }
            _ => PlayerKind::Search(EvalSpec::from_parts(spec, name, &eval_pairs).map_err(|e| {
                err(format!(
                    "{} (players: hce, nn, a network file, random, greedy, engine:COMMAND; keys: nodes, depth, movetime, hash, threads, tb, and heads for a network)",
                    e.problem
                ))
            })?),
        };
        if limits == Limits::default() {
            limits = default_limits;
        }
        let searches = matches!(kind, PlayerKind::Search(_) | PlayerKind::Engine { .. });
        if searches && limits == Limits::default() && clock.is_none() {
            return Err(err("a searching player needs a limit (nodes, depth or movetime) or a clock".to_string()));
        }
        if external && tables.is_some() {
            return Err(err("an external engine takes its tables as an option of its own".to_string()));
        }
        Ok(PlayerSpec { kind, limits, hash_mb, tables, threads, clock })
    }

    /// Whether the player is an external engine.
    pub fn is_external(&self) -> bool {
        matches!(self.kind, PlayerKind::Engine { .. })
    }

    /// The same player with this time per move (a match's `--movetime`),
    /// which replaces its own.
    pub fn with_movetime(mut self, movetime: Option<Duration>) -> PlayerSpec {
        if movetime.is_some() {
            self.limits.movetime = movetime;
        }
        self
    }

    /// The same player with these tables (a run's or a match's `--tb`),
    /// unless it names its own.
    pub fn with_tables(mut self, tables: Option<&TablesSpec>) -> PlayerSpec {
        if self.tables.is_none() && !self.is_external() {
            self.tables = tables.cloned();
        }
        self
    }

    /// Refuses a player whose network was trained, or whose tables were
    /// built, for other rules than `rules`.
    pub fn check_rules(&self, rules: RuleSet) -> Result<(), SpecError> {
        let refuse = |problem: String| SpecError { spec: self.describe_short(), problem };
        if let PlayerKind::Search(eval) = &self.kind {
            eval.check_rules(rules).map_err(|e| refuse(e.to_string()))?;
        }
        if let Some(t) = &self.tables {
            t.check_rules(rules).map_err(|e| refuse(e.to_string()))?;
        }
        Ok(())
    }

    /// The player's kind for error messages (`hce`, `nn:ID`, `random`, ...).
    fn describe_short(&self) -> String {
        match &self.kind {
            PlayerKind::Search(eval) => eval.describe(),
            PlayerKind::Perfect(_) => "perfect".to_string(),
            other => format!("{other:?}").to_lowercase(),
        }
    }

    /// A fresh player for one game (its search tables start empty).
    pub fn build(&self) -> Player {
        let searcher = match &self.kind {
            PlayerKind::Search(eval) => {
                let mut searcher = Searcher::new(eval.build(), SearchConfig { hash_mb: self.hash_mb });
                searcher.set_tables(self.tables.as_ref().map(|t| Arc::clone(&t.tables)));
                searcher.set_threads(self.threads);
                Some(searcher)
            }
            PlayerKind::Perfect(_) => {
                let eval: Box<dyn Evaluator> = Box::new(Hce::new(HceWeights::default()));
                let mut searcher = Searcher::new(eval, SearchConfig { hash_mb: self.hash_mb });
                searcher.set_tables(self.tables.as_ref().map(|t| Arc::clone(&t.tables)));
                Some(searcher)
            }
            _ => None,
        };
        Player { spec: self.clone(), searcher, engine: None, perfect: None }
    }
}

impl fmt::Display for PlayerSpec {
    /// The spec in the form [`PlayerSpec::parse`] reads, limits included.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let limits = self.limits.to_string();
        let mut parts: Vec<String> = Vec::new();
        match &self.kind {
            PlayerKind::Random => f.write_str("random")?,
            PlayerKind::Greedy => f.write_str("greedy")?,
            PlayerKind::Search(EvalSpec::Hce(w)) => {
                f.write_str("hce")?;
                parts.push(limits);
                if *w != HceWeights::default() {
                    parts.push(w.describe());
                }
            }
            PlayerKind::Search(net @ EvalSpec::Network(_)) => {
                f.write_str(&net.describe())?;
                parts.push(limits);
            }
            PlayerKind::Engine { command, options } => {
                write!(f, "engine:{command}")?;
                parts.push(limits);
                parts.extend(options.iter().map(|(k, v)| format!("{k}={v}")));
            }
            PlayerKind::Perfect(settings) => {
                f.write_str("perfect")?;
                parts.push(limits);
                parts.extend(settings.store.iter().map(|p| format!("store={}", p.display())));
                parts.extend(settings.certificate.iter().map(|p| format!("cert={}", p.display())));
                if settings.choosing != crate::perfect::Choosing::default() {
                    parts.push(format!("choice={}", settings.choosing.name()));
                }
                parts.extend(settings.move_cap.map(|c| format!("movecap={}", c.as_millis())));
            }
        }
        if self.threads > 1 {
            parts.push(format!("threads={}", self.threads));
        }
        if let Some(tc) = self.clock {
            parts.push(format!("tc={tc}"));
        }
        if let Some(t) = &self.tables {
            parts.push(format!("tb={}", t.dir));
        }
        parts.retain(|p| !p.is_empty());
        if !parts.is_empty() {
            write!(f, "@{}", parts.join(","))?;
        }
        Ok(())
    }
}

/// A player ready to choose moves in one game (an external engine's
/// process is started at its first move and ends with the player).
pub struct Player {
    spec: PlayerSpec,
    searcher: Option<Searcher<Box<dyn Evaluator>>>,
    engine: Option<EngineProcess>,
    /// A perfect player's oracle and strategies, set up at its first move
    /// (when the game's rules are known).
    perfect: Option<Perfect>,
}

impl Player {
    pub fn spec(&self) -> &PlayerSpec {
        &self.spec
    }

    /// Moves a perfect player chose by search because the oracle knew no
    /// value-keeping move within its budget (0 for other players).
    pub fn fallbacks(&self) -> u32 {
        self.perfect.as_ref().map_or(0, |p| p.fallbacks)
    }

    /// Chooses a move in `game`'s current position; `None` when there is
    /// none, or when an external engine fails (see [`Player::play`]).
    pub fn choose(&mut self, game: &Game, rng: &mut impl Rng) -> Option<Choice> {
        self.play(game, rng, None, Instant::now() + ENGINE_MOVE_TIMEOUT).ok().flatten()
    }

    /// Starts an external engine for `game` (its process, the handshake,
    /// options and `ucinewgame`) unless it runs already; nothing for a
    /// built-in player. A match calls this before the game's first move, so
    /// that starting the engine is not charged to that move's time.
    pub fn prepare(&mut self, game: &Game) -> Result<(), Forfeit> {
        let PlayerKind::Engine { command, options } = &self.spec.kind else { return Ok(()) };
        if self.engine.is_some() {
            return Ok(());
        }
        let mut engine = EngineProcess::start(command)?;
        let mut options = options.clone();
        if engine.has_option("NoProgress") {
            let limit = game.config().no_progress_limit.unwrap_or(0);
            options.push(("NoProgress".to_string(), limit.to_string()));
        }
        // Rules other than BrainKing's need an engine that can be told.
        if engine.has_option("Rules") {
            options.push(("Rules".to_string(), game.rules().name().to_string()));
        } else if game.rules() != RuleSet::BrainKing {
            return Err(Forfeit::NoRules(game.rules()));
        }
        engine.new_game(&options)?;
        self.engine = Some(engine);
        Ok(())
    }

    /// Chooses a move on `clock`, if the game has one (a searching player
    /// then spends [`time_for_move`] of its time, within its own limits);
    /// `Ok(None)` when there is no move. An external engine must answer by
    /// `deadline`; an error says why it forfeits the game (it could not
    /// start, crashed, did not answer in time, or sent an illegal or
    /// malformed move).
    pub fn play(
        &mut self,
        game: &Game,
        rng: &mut impl Rng,
        clock: Option<&Clock>,
        deadline: Instant,
    ) -> Result<Option<Choice>, Forfeit> {
        let pos = game.position();
        let moves = game.legal_moves();
        if moves.is_empty() {
            return Ok(None);
        }
        let side = pos.side_to_move().index();
        let mut limits = self.spec.limits;
        if let Some(c) = clock {
            let budget = time_for_move(c.remaining[side], c.increment, None);
            limits.movetime = Some(limits.movetime.map_or(budget, |t| t.min(budget)));
        }
        if let PlayerKind::Engine { .. } = &self.spec.kind {
            self.prepare(game)?;
            let engine = self.engine.as_mut().expect("started above");
            let args = match clock {
                Some(c) => {
                    let ms = |d: Duration| d.as_millis();
                    let (w, b, inc) = (ms(c.remaining[0]), ms(c.remaining[1]), ms(c.increment));
                    format!("wtime {w} btime {b} winc {inc} binc {inc}")
                }
                None => go_args(limits),
            };
            let answer = engine.go(game, &args, deadline)?;
            return Ok(Some(Choice { mv: answer.mv, score: answer.score }));
        }
        Ok(self.choose_builtin(game, rng, limits))
    }

    fn choose_builtin(&mut self, game: &Game, rng: &mut impl Rng, limits: Limits) -> Option<Choice> {
        let pos = game.position();
        let moves = game.legal_moves();
        if let Some(choice) = self.spec.tables.as_ref().and_then(|t| t.best_move(game, rng)) {
            return Some(choice);
        }
        match self.spec.kind {
            PlayerKind::Random => moves.choose(rng).map(|&mv| Choice { mv, score: None }),
            PlayerKind::Greedy => {
                // Greedy for material: the move that wins at once, else the
                // one that captures most; ties at random.
                let value =
                    |mv: &Move| if pos.play(*mv).is_lost_in(game.rules()) { u32::MAX } else { mv.jumps() as u32 };
                let best = moves.iter().map(value).max()?;
                let ties: Vec<Move> = moves.iter().copied().filter(|m| value(m) == best).collect();
                ties.choose(rng).map(|&mv| Choice { mv, score: None })
            }
            PlayerKind::Search(_) => {
                let searcher = self.searcher.as_mut()?;
                let result = searcher.search(game, limits, |_| {});
                result.best.map(|mv| Choice { mv, score: Some(result.score) })
            }
            PlayerKind::Engine { .. } => None,
            PlayerKind::Perfect(ref settings) => {
                if self.perfect.is_none() {
                    // Capped, the oracle's budget is the whole move's (shared by its questions).
                    let movetime = match settings.move_cap {
                        Some(cap) => self.spec.limits.movetime.map_or(cap, |t| t.min(cap)),
                        None => self.spec.limits.movetime.unwrap_or(DEFAULT_MOVETIME),
                    };
                    let dir = self.spec.tables.as_ref().map(|t| t.dir.as_str());
                    match Perfect::new(settings, game.rules(), dir, movetime) {
                        Ok(p) => self.perfect = Some(p),
                        Err(e) => {
                            eprintln!("perfect: {e}");
                            return None;
                        }
                    }
                }
                let fallback =
                    Limits { nodes: Some(self.spec.limits.nodes.unwrap_or(10_000)), depth: None, movetime: None };
                let perfect = self.perfect.as_mut()?;
                perfect.choose(game, rng, self.searcher.as_mut()?, fallback)
            }
        }
    }
}

/// The `go` arguments of a player's limits: `depth D nodes N movetime MS`
/// (their display, `depth=D,nodes=N,movetime=MS`, with spaces).
fn go_args(limits: Limits) -> String {
    limits.to_string().replace(['=', ','], " ")
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
        assert_eq!(
            w.to_string(),
            format!("hce@depth=4,{}", {
                let mut x = HceWeights::default();
                x.set("mobility", 9).unwrap();
                x.describe()
            })
        );
        assert_eq!(PlayerSpec::parse("random", d).unwrap().kind, PlayerKind::Random);
        for bad in ["hce@nodes=x", "hce@bogus=1", "alphazero", "greedy@mobility=3", "hce@nodes"] {
            assert!(PlayerSpec::parse(bad, d).is_err(), "{bad}");
        }
        assert!(PlayerSpec::parse("hce", Limits::default()).is_err());
        assert_eq!(PlayerSpec::parse("nn@nodes=9,threads=2", d).unwrap().threads, 2);
        assert_eq!(PlayerSpec::parse("hce@nodes=9,threads=2", d).unwrap().to_string(), "hce@nodes=9,threads=2");
    }

    #[test]
    fn engine_specs_and_time_controls_parse() {
        let d = Limits::nodes(1000);
        let e = PlayerSpec::parse("engine:python3 my bot.py@movetime=50,Hash=8", d).unwrap();
        assert_eq!(
            e.kind,
            PlayerKind::Engine {
                command: "python3 my bot.py".to_string(),
                options: vec![("Hash".to_string(), "8".to_string())]
            }
        );
        assert_eq!(e.limits, Limits::movetime(Duration::from_millis(50)));
        assert_eq!(e.to_string(), "engine:python3 my bot.py@movetime=50,Hash=8");
        assert_eq!(PlayerSpec::parse("engine:./bot", d).unwrap().limits, d);
        assert!(PlayerSpec::parse("engine:", d).is_err());
        let tc = TimeControl::parse("10+0.1").unwrap();
        assert_eq!((tc.base, tc.increment), (Duration::from_secs(10), Duration::from_millis(100)));
        assert_eq!(TimeControl::parse("3").unwrap().increment, Duration::ZERO);
        for bad in ["", "x+1", "0+1", "-5", "10+y"] {
            assert!(TimeControl::parse(bad).is_err(), "{bad}");
        }
        let timed = PlayerSpec::parse_with_clock("nn", Limits::default(), Some(tc)).unwrap();
        assert_eq!(timed.limits, Limits::default());
        assert!(timed.to_string().ends_with("tc=10+0.1"), "{timed}");
    }
}
