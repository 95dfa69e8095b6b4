//! The [`Evaluator`] trait and the handcrafted evaluator [`Hce`].

use crate::moves::Move;
use crate::position::Position;
use crate::rules::{RuleSet, Rules, Shift};
use crate::types::{Bitboard, Side};

/// Scores a position from the side to move's point of view, in centipawns
/// (one piece of material is worth about 100).
///
/// The searcher calls [`Evaluator::make`] and [`Evaluator::unmake`] around
/// every move it makes, so an evaluator with incremental state (a neural
/// network's first layer) can keep it in step; stateless evaluators ignore them.
///
/// # Examples
///
/// A stateless evaluator needs only [`Evaluator::evaluate`] and
/// [`Evaluator::describe`]:
///
/// ```
/// use alq_engine::{Evaluator, Limits, Position, SearchConfig, Searcher};
///
/// /// Material only: 100 per piece.
/// struct Material;
///
/// impl Evaluator for Material {
///     fn evaluate(&mut self, pos: &Position) -> i32 {
///         let us = pos.side_to_move();
///         100 * (pos.pieces(us).count() as i32 - pos.pieces(us.opponent()).count() as i32)
///     }
///     fn describe(&self) -> String {
///         "material".to_string()
///     }
/// }
///
/// let mut searcher = Searcher::new(Material, SearchConfig { hash_mb: 1 });
/// let result = searcher.search_position(&Position::start(), Limits::depth(3));
/// assert!(Position::start().legal_moves().contains(&result.best.unwrap()));
/// assert_eq!(searcher.evaluator().describe(), "material");
/// ```
pub trait Evaluator: Send {
    /// The score of `pos` for the side to move. Called only on positions where
    /// the side to move has no capture.
    fn evaluate(&mut self, pos: &Position) -> i32;

    /// A short description for logs and records (e.g. `hce`).
    fn describe(&self) -> String;

    /// The search is about to move from `before` with `mv`, reaching `after`.
    fn make(&mut self, _before: &Position, _mv: Move, _after: &Position) {}

    /// The search takes back the last move it made.
    fn unmake(&mut self) {}

    /// The search starts at `root`; incremental evaluators reset their state.
    fn reset(&mut self, _root: &Position) {}

    /// The rule set of the game about to be searched (called before
    /// [`Evaluator::reset`]); evaluators whose terms depend on the rules
    /// follow it.
    fn set_rules(&mut self, _rules: RuleSet) {}

    /// Move-ordering hints for `moves` of `pos`, the position the search
    /// stands on (its moves made): `hints[i]` for `moves[i]`, higher first,
    /// within ±[`crate::MAX_POLICY_HINT`]. Returns `false`, leaving `hints` alone,
    /// when the evaluator has no move policy (the default).
    fn policy(&mut self, _pos: &Position, _moves: &[Move], _hints: &mut [i32]) -> bool {
        false
    }

    /// A fresh evaluator of the same kind and settings, for a helper thread
    /// of a multi-threaded search; `None` when it cannot be copied (the
    /// search then runs on one thread).
    fn fork(&self) -> Option<Box<dyn Evaluator>> {
        None
    }
}

/// The largest score any evaluator returns, in absolute value: well below the
/// band of proven wins and losses ([`crate::MATE_BOUND`]).
pub const MAX_EVAL: i32 = 20_000;

/// Weights of the handcrafted evaluator, in centipawns.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HceWeights {
    /// Value of one piece.
    pub material: i32,
    /// Per rank advanced (0 on the home rank, up to 3 on the rank before the last).
    pub advance: i32,
    /// A piece on its last row: frozen, can only capture sideways.
    pub last_row: i32,
    /// Per simple move available (counted for both sides, as if each were to move).
    pub mobility: i32,
    /// Per opponent piece the side to move could capture at once (threats).
    pub threat: i32,
    /// Per own piece the opponent could capture if it were its turn.
    pub hanging: i32,
    /// Per own piece standing on a line behind which (seen from an attacker) an
    /// own piece blocks the landing point: it cannot be jumped from that side.
    pub defended: i32,
    /// Per own piece (not on the last row) with no simple move.
    pub blocked: i32,
    /// Per own piece still in play: some opponent piece stands on its rank
    /// or further forward, so the two can still meet. Pieces that have
    /// passed every opponent can neither capture nor be captured.
    pub in_play: i32,
    /// Bonus for the side to move (tempo).
    pub tempo: i32,
}

impl Default for HceWeights {
    /// Tuned by self-play matches with `scripts/tune_hce.py` (coordinate
    /// search, 1,000-game paired matches at 1,000 nodes per move; see
    /// docs/figures.md for the log). Hand-set starting point: advance 4, mobility 3,
    /// threat 12, blocked -6, tempo 5; the tuned set beat it by +14 Elo
    /// [+6, +22] over 2,000 fresh games at 2,000 nodes.
    fn default() -> HceWeights {
        HceWeights {
            material: 100,
            advance: 0,
            last_row: -30,
            mobility: 5,
            threat: 6,
            hanging: -20,
            defended: 4,
            blocked: -10,
            in_play: 10,
            tempo: 0,
        }
    }
}

/// Why [`HceWeights::set`] refused a weight.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WeightError {
    #[error("{name}={value} is out of range (at most ±{max})", max = HceWeights::MAX_ABS)]
    OutOfRange { name: String, value: i32 },
    #[error("unknown weight {name:?} (weights: {names})", names = HceWeights::NAMES.join(", "))]
    Unknown { name: String },
}

impl HceWeights {
    /// Names of the weights, as accepted by [`HceWeights::set`].
    pub const NAMES: [&'static str; 10] =
        ["material", "advance", "last_row", "mobility", "threat", "hanging", "defended", "blocked", "in_play", "tempo"];

    /// Largest weight (in absolute value) [`HceWeights::set`] accepts: every
    /// term counts at most a few hundred features, so the sum stays far from
    /// `i32`'s range, and the score is clamped below the proven-result band.
    pub const MAX_ABS: i32 = 1_000_000;

    /// Sets one weight by name. Refuses an unknown name and a value beyond
    /// ±[`HceWeights::MAX_ABS`], saying why.
    ///
    /// # Errors
    ///
    /// [`WeightError::OutOfRange`] when `value` is beyond
    /// ±[`HceWeights::MAX_ABS`]; [`WeightError::Unknown`] when `name` is not
    /// one of [`HceWeights::NAMES`]. The weights are unchanged.
    ///
    /// # Examples
    ///
    /// ```
    /// use alq_engine::{HceWeights, WeightError};
    ///
    /// let mut weights = HceWeights::default();
    /// weights.set("mobility", 7).unwrap();
    /// assert_eq!(weights.mobility, 7);
    /// assert!(weights.describe().contains("mobility=7"));
    /// assert!(matches!(weights.set("speed", 1), Err(WeightError::Unknown { .. })));
    /// assert!(matches!(weights.set("tempo", 2_000_000), Err(WeightError::OutOfRange { .. })));
    /// ```
    pub fn set(&mut self, name: &str, value: i32) -> Result<(), WeightError> {
        if value.unsigned_abs() > Self::MAX_ABS as u32 {
            return Err(WeightError::OutOfRange { name: name.to_string(), value });
        }
        let slot = match name {
            "material" => &mut self.material,
            "advance" => &mut self.advance,
            "last_row" => &mut self.last_row,
            "mobility" => &mut self.mobility,
            "threat" => &mut self.threat,
            "hanging" => &mut self.hanging,
            "defended" => &mut self.defended,
            "blocked" => &mut self.blocked,
            "in_play" => &mut self.in_play,
            "tempo" => &mut self.tempo,
            _ => return Err(WeightError::Unknown { name: name.to_string() }),
        };
        *slot = value;
        Ok(())
    }

    /// The weights as `name=value` pairs, in [`HceWeights::NAMES`] order.
    pub fn describe(&self) -> String {
        let values = [
            self.material,
            self.advance,
            self.last_row,
            self.mobility,
            self.threat,
            self.hanging,
            self.defended,
            self.blocked,
            self.in_play,
            self.tempo,
        ];
        Self::NAMES.iter().zip(values).map(|(n, v)| format!("{n}={v}")).collect::<Vec<_>>().join(",")
    }
}

/// The handcrafted evaluator: material, advancement, the last-row freeze,
/// mobility, threats, hanging and defended pieces, blocked pieces.
///
/// # Examples
///
/// ```
/// use alq_engine::{Evaluator, Hce, HceWeights, Position, MAX_EVAL};
///
/// let mut hce = Hce::default();
/// assert_eq!(hce.describe(), "hce");
/// // A piece up (White, to move) scores well above zero; the same from
/// // Black's side, well below.
/// let up: Position = "..B../...../...../.WW../..... w".parse().unwrap();
/// let score = hce.evaluate(&up);
/// assert!(score > 50 && score <= MAX_EVAL);
/// assert!(hce.evaluate(&up.with_side_to_move(alq_engine::Side::Black)) < -50);
///
/// let custom = Hce::new(HceWeights { tempo: 5, ..HceWeights::default() });
/// assert!(custom.describe().starts_with("hce[material=100,"));
/// ```
#[derive(Clone, Debug, Default)]
pub struct Hce {
    pub weights: HceWeights,
    /// The rules its mobility and threat terms follow (set by the search from
    /// the game).
    rules: RuleSet,
}

impl Hce {
    /// The handcrafted evaluator with `weights`, under the BrainKing rules
    /// until a search sets its game's rules.
    pub fn new(weights: HceWeights) -> Hce {
        Hce { weights, rules: RuleSet::BrainKing }
    }

    /// The terms of one side, seen from that side (no tempo).
    fn side_terms(&self, rules: &Rules, pos: &Position, side: Side) -> i32 {
        let w = &self.weights;
        let s = side.index();
        let ours = pos.pieces(side);
        let theirs = pos.pieces(side.opponent());
        let empty = pos.empty();
        let mut score = w.material * ours.count() as i32;

        let on_last = ours.intersection(rules.last_row[s]);
        score += w.last_row * on_last.count() as i32;
        for p in ours.difference(on_last) {
            let advanced = if side == Side::White { p.rank() } else { 4 - p.rank() };
            score += w.advance * advanced as i32;
        }

        // The furthest rank (from this side's view) any opponent piece stands
        // on; own pieces up to that rank are still in play.
        let in_play = match side {
            Side::White => theirs.last().map(|p| ours.0 & ((1u32 << ((p.rank() + 1) * 5)) - 1)),
            Side::Black => theirs.first().map(|p| ours.0 & !((1u32 << (p.rank() * 5)) - 1)),
        };
        score += w.in_play * in_play.map_or(0, |bits| bits.count_ones() as i32);

        let mut movable = Bitboard::EMPTY;
        let mut moves = 0;
        for sh in &rules.step_shifts[s] {
            let targets = sh.apply(ours).intersection(empty);
            moves += targets.count() as i32;
            movable = movable.union(sh.back(targets));
        }
        score += w.mobility * moves;
        score += w.blocked * ours.difference(on_last).difference(movable).count() as i32;

        // Threats: opponent pieces this side could jump first.
        let mut threatened = Bitboard::EMPTY;
        let mut guarded = Bitboard::EMPTY;
        for sh in &rules.first_jump_shifts[s] {
            let over = sh.apply(ours);
            let beyond = Shift { delta: sh.delta, from: Bitboard::ALL };
            threatened = threatened.union(over.intersection(theirs).intersection(beyond.back(empty)));
            // An opponent piece in front of one of ours, with one of *their*
            // pieces behind it, is shielded against this jump.
            guarded = guarded.union(over.intersection(theirs).intersection(beyond.back(theirs)));
        }
        score += w.threat * threatened.count() as i32;
        // Defended pieces are credited to the side that owns them.
        score -= w.defended * guarded.count() as i32;
        score
    }
}

impl Evaluator for Hce {
    fn evaluate(&mut self, pos: &Position) -> i32 {
        let rules = self.rules.rules();
        let us = pos.side_to_move();
        let them = us.opponent();
        let mut score = self.side_terms(rules, pos, us) - self.side_terms(rules, pos, them);
        // Our pieces the opponent threatens (it is not its turn, so they are
        // hanging rather than lost); counted via the opponent's threat term
        // above with the threat weight, and here with the hanging weight.
        let hanging = hanging_count(rules, pos, us);
        score += self.weights.hanging * hanging as i32 + self.weights.tempo;
        // Keep clear of the proven-result band, whatever the weights.
        score.clamp(-MAX_EVAL, MAX_EVAL)
    }

    fn describe(&self) -> String {
        if self.weights == HceWeights::default() {
            "hce".to_string()
        } else {
            format!("hce[{}]", self.weights.describe())
        }
    }

    fn fork(&self) -> Option<Box<dyn Evaluator>> {
        Some(Box::new(self.clone()))
    }

    fn set_rules(&mut self, rules: RuleSet) {
        self.rules = rules;
    }
}

/// How many of `side`'s pieces the opponent could jump first if it were to move.
fn hanging_count(rules: &Rules, pos: &Position, side: Side) -> u32 {
    let attacker = side.opponent().index();
    let theirs = pos.pieces(side.opponent());
    let ours = pos.pieces(side);
    let empty = pos.empty();
    let mut hanging = Bitboard::EMPTY;
    for sh in &rules.first_jump_shifts[attacker] {
        let over = sh.apply(theirs).intersection(ours);
        let beyond = Shift { delta: sh.delta, from: Bitboard::ALL };
        hanging = hanging.union(over.intersection(beyond.back(empty)));
    }
    hanging.count()
}

/// Lets a searcher hold any evaluator chosen at run time.
impl Evaluator for Box<dyn Evaluator> {
    fn evaluate(&mut self, pos: &Position) -> i32 {
        (**self).evaluate(pos)
    }
    fn describe(&self) -> String {
        (**self).describe()
    }
    fn make(&mut self, before: &Position, mv: Move, after: &Position) {
        (**self).make(before, mv, after)
    }
    fn unmake(&mut self) {
        (**self).unmake()
    }
    fn reset(&mut self, root: &Position) {
        (**self).reset(root)
    }
    fn set_rules(&mut self, rules: RuleSet) {
        (**self).set_rules(rules)
    }
    fn policy(&mut self, pos: &Position, moves: &[Move], hints: &mut [i32]) -> bool {
        (**self).policy(pos, moves, hints)
    }
    fn fork(&self) -> Option<Box<dyn Evaluator>> {
        (**self).fork()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_is_balanced_up_to_tempo() {
        let mut hce = Hce::default();
        let start = Position::start();
        let score = hce.evaluate(&start);
        // Symmetric material; White's c3 options differ from Black's only by
        // whose turn it is, so the score is small.
        assert!(score.abs() < 60, "{score}");
    }

    #[test]
    fn more_material_scores_higher() {
        let mut hce = Hce::default();
        let up: Position = "..B../...../...../.WW../..... w".parse().unwrap();
        let down: Position = "..BB./...../...../.W.../..... w".parse().unwrap();
        assert!(hce.evaluate(&up) > 50);
        assert!(hce.evaluate(&down) < -50);
    }

    #[test]
    fn huge_weights_stay_below_the_proven_band() {
        let mut w = HceWeights::default();
        for name in HceWeights::NAMES {
            w.set(name, HceWeights::MAX_ABS).unwrap();
        }
        let mut hce = Hce::new(w);
        for text in ["BB.../...../...../...../WWWWW w", crate::START_TEXT, "WWWWW/...../...../...../..B.. b"] {
            let pos: Position = text.parse().unwrap();
            let score = hce.evaluate(&pos);
            assert!(score.abs() <= MAX_EVAL, "{text}: {score}");
        }
        let mut material = Hce::new(HceWeights { material: 10_000, ..HceWeights::default() });
        let pos: Position = "BB.../...../...../...../WWWWW w".parse().unwrap();
        assert_eq!(material.evaluate(&pos), MAX_EVAL);
    }

    #[test]
    fn weights_set_by_name() {
        let mut w = HceWeights::default();
        assert!(w.set("mobility", 7).is_ok());
        assert!(w.set("nonsense", 1).unwrap_err().to_string().contains("unknown weight \"nonsense\""));
        assert!(matches!(w.set("material", HceWeights::MAX_ABS + 1), Err(WeightError::OutOfRange { .. })));
        assert!(w.set("material", -HceWeights::MAX_ABS).is_ok());
        assert_eq!(w.mobility, 7);
        assert!(w.describe().contains("mobility=7"));
        assert_eq!(Hce::new(w).describe(), format!("hce[{}]", w.describe()));
        assert_eq!(Hce::default().describe(), "hce");
    }
}
