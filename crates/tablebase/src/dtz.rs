//! Distance-to-progress tables (value encoding 3): values under the
//! no-progress rule of games, the analogue of chess's DTZ tables and their
//! "cursed wins" for the fifty-move rule.
//!
//! A game is drawn when [`NO_PROGRESS_PLIES`] plies in a row pass without a
//! capture or a forward move (docs/rules.md, "End of the game"; the check
//! that the side to move has no legal move comes first). A *progress* move
//! (a capture or a forward move) resets the count. Each entry is the value
//! of its position for the side to move when the count is 0 there, as it is
//! right after a progress move:
//! - `Win(d)`: a win under the rule; `d` plies (1 to 60) to the next
//!   progress move (by either side) or to the end, the winner hurrying and
//!   the loser delaying, on a line that keeps the win. With `c` plies
//!   already counted the position is won under the rule exactly when
//!   `c + d <= 60`.
//! - `CursedWin`: a win of the infinite game (as the other kinds give it)
//!   that the rule turns into a draw: the loser can hold off every won
//!   progress move for more than 60 plies.
//! - `Draw`, `BlessedLoss` (the other side's cursed win) and `Loss(d)` (`d`
//!   from 0, no legal move, to 60) likewise.
//!
//! Repetition changes none of these: the winner's line never repeats a
//! position (its distances fall), and an extra draw rule only adds draws.
//!
//! Under BrainKing's rules no simple move goes backward, so a progress move
//! always leaves the advancement slice (see `slices.rs`), whose pairs are
//! solved from the most advanced down: every progress move of a pair leads
//! to a finished pair or a smaller table. Inside a pair only sideways moves
//! remain, and a retrograde walk in increasing distance gives each position
//! the least number of plies to a progress move that wins under the rule
//! (for the loser: the most). The cursed results ride along, as the
//! chess tables' generators do it: a progress move into a blessed loss (a
//! cursed win for the mover) enters the walk at distance 61, past the
//! rule, so a line that reaches such a move, or any win longer than 60
//! plies, ends above 60 and is a cursed win, while every distance up to 60
//! is the rule's own (the rule's verdict only asks whether a distance is at
//! most 60, and values above it never decide that). Distances above 60 are
//! not stored: a cursed win keeps no distance.
//!
//! Byte encoding: 0 draw; 1 to 60 a win in that many plies; 61 a cursed
//! win; 62 a blessed loss; 64 + d a loss in d plies (64 to 124).

use alq_engine::{Bitboard, MoveList, RuleSet};

use crate::error::TbError;
use crate::format::TableView;
use crate::index::{canonical, rotate, Material, ALL};
use crate::slices::{pack, unpack, ClassSlices, Pair, Slice, Store, Work, CAPTURES, NEVER_LOSES};
use crate::solve::{capturers, Lookup, Phase};
use crate::value::{Dtz, Kind, NO_PROGRESS_PLIES};

/// Distances the walk tells apart; longer ones (all past the rule) are held
/// at this one, which keeps every verdict.
const CAP: u32 = 250;

/// What one progress move gives its mover, from the value of the position
/// it reaches (for the other side, the count back at 0).
#[derive(Clone, Copy)]
enum Exit {
    Win(u32),
    Draw,
    Loss(u32),
}

/// `limit`: the rule's plies; a progress move into a cursed result enters
/// the walk past them.
#[inline]
fn exit_of(reached: u8, limit: u32) -> Exit {
    match Dtz::from_byte(reached) {
        Some(Dtz::Loss(_)) => Exit::Win(1),
        Some(Dtz::BlessedLoss) => Exit::Win(limit + 1),
        Some(Dtz::Draw) | None => Exit::Draw,
        Some(Dtz::CursedWin) => Exit::Loss(limit + 1),
        Some(Dtz::Win(_)) => Exit::Loss(1),
    }
}

/// The progress moves of a position seen so far, by what they give it.
#[derive(Default)]
struct Exits {
    /// The shortest win.
    best: Option<u32>,
    /// A move that does not lose.
    never_loses: bool,
    /// The longest loss (0 when none).
    most: u32,
}

impl Exits {
    fn add(&mut self, exit: Exit) {
        match exit {
            Exit::Win(d) => self.best = Some(self.best.map_or(d, |b| b.min(d))),
            Exit::Draw => self.never_loses = true,
            Exit::Loss(d) => self.most = self.most.max(d),
        }
    }

    /// The position's queue code when these are all its moves: its win, or
    /// its loss when no move holds (a loss in 0 without moves); `None` for
    /// a draw.
    fn settled(&self) -> Option<usize> {
        match self.best {
            Some(d) => Some(code(d, false)),
            None => (!self.never_loses).then(|| code(self.most, true)),
        }
    }
}

/// The walk's queue code: twice the distance, plus one for a loss.
#[inline]
fn code(d: u32, loss: bool) -> usize {
    (2 * d.min(CAP) + u32::from(loss)) as usize
}

/// The stored byte of a settled distance.
#[inline]
fn byte_of(d: u32, loss: bool, limit: u32) -> u8 {
    let value = match (loss, d <= limit) {
        (false, true) => Dtz::Win(d),
        (false, false) => Dtz::CursedWin,
        (true, true) => Dtz::Loss(d),
        (true, false) => Dtz::BlessedLoss,
    };
    value.to_byte().expect("distances within the rule have a byte")
}

struct Context<'a> {
    rules: &'static alq_engine::Rules,
    sideways: [u32; 25],
    classes: Vec<ClassSlices>,
    stores: Vec<Store>,
    lookup: &'a Lookup<'a>,
    /// The rule's plies (60; smaller in tests).
    limit: u32,
}

/// Solves a unit's distance-to-progress tables (BrainKing's rules; the
/// smaller tables in `lookup` of this kind) for a no-progress rule of
/// `limit` plies (at most 60); each class's entries in index order.
pub(crate) fn solve_unit(
    rules: RuleSet,
    unit: &[Material],
    limit: u32,
    lookup: &Lookup<'_>,
    report: &mut dyn FnMut(Phase),
) -> Result<Vec<Vec<u8>>, TbError> {
    if !crate::slices::applies(rules) {
        return Err(TbError::Unsupported(format!(
            "distance-to-progress tables need rules without backward moves (BrainKing's), not {}",
            rules.name()
        )));
    }
    let classes: Vec<ClassSlices> = unit.iter().map(|&m| ClassSlices::new(m)).collect();
    let stores = classes.iter().map(|c| Store::new(c.len, false)).collect();
    let ctx = Context {
        rules: rules.rules(),
        sideways: crate::slices::sideways(rules),
        classes,
        stores,
        lookup,
        limit: limit.min(NO_PROGRESS_PLIES),
    };
    crate::slices::solve_levels(&ctx.classes, unit, report, Work::default, |pair, work| solve_pair(&ctx, pair, work));
    Ok(ctx.classes.iter().zip(&ctx.stores).map(|(c, s)| crate::slices::encode(c, s, Kind::Dtz)).collect())
}

fn solve_pair<'a>(ctx: &Context<'a>, pair: Pair, work: &mut Work<'a>) {
    let n = if pair.alone { 1 } else { 2 };
    let slice = |k: usize| &ctx.classes[pair.sides[k].0].slices[pair.sides[k].1];
    let partner = |k: usize| if pair.alone { 0 } else { 1 - k };
    if work.buckets.is_empty() {
        work.buckets = vec![Vec::new(); code(CAP, true) + 1];
    }
    for k in 0..n {
        let len = slice(k).len as usize;
        for v in [&mut work.val[k], &mut work.count[k], &mut work.worst[k]] {
            v.clear();
            v.resize(len, 0);
        }
    }
    let mut moves = MoveList::new();
    // 1. Progress moves (captures into the smaller tables, forward moves into
    //    finished pairs) and sideways counts.
    for k in 0..n {
        let s = slice(k);
        let (next_class, _) = pair.sides[partner(k)];
        let next = &ctx.classes[next_class];
        let next_store = &ctx.stores[next_class];
        let Work { count, worst, buckets, captures, .. } = work;
        s.for_each(|l, us, them| {
            if canonical(us, them) != (us, them) {
                return;
            }
            if capturers(ctx.rules, us, them) != 0 {
                count[k][l as usize] = CAPTURES;
                crate::slices::queue_captures(ctx.rules, ctx.lookup, (us, them, k), &mut moves, captures);
                if captures.len() >= 256 {
                    flush_captures(captures, buckets, ctx.limit);
                }
                return;
            }
            let empty = !(us | them) & ALL;
            let (mut side_moves, mut exits) = (0u32, Exits::default());
            for f in Bitboard(us) {
                let fi = f.index();
                let to = ctx.rules.steps[0][fi].0 & empty;
                let rank = crate::slices::ROW << (5 * (fi / 5));
                side_moves += (to & rank).count_ones();
                for t in Bitboard(to & !rank) {
                    let moved = us ^ (1 << fi) ^ (1 << t.index());
                    exits.add(exit_of(next_store.get(next.place(rotate(them), rotate(moved))), ctx.limit));
                }
            }
            let holds = exits.never_loses || exits.best.is_some();
            count[k][l as usize] = side_moves as u8 | if holds { NEVER_LOSES } else { 0 };
            worst[k][l as usize] = exits.most as u8;
            // A win now, or (no sideways move) a loss: every move a losing
            // progress move, or no move at all (a loss in 0).
            if let Some(c) = exits.settled().filter(|_| exits.best.is_some() || side_moves == 0) {
                buckets[c].push(pack(us, them, k));
            }
        });
        flush_captures(captures, buckets, ctx.limit);
    }
    // 2. Sideways retrograde, in increasing distance. A loss held at the
    //    cap passes back a win held at the cap, one bucket below it: the two
    //    last buckets are taken again until both are empty.
    let capped = code(CAP, false);
    let mut c = 0;
    while c < work.buckets.len() {
        let Some(e) = work.buckets[c].pop() else {
            c = if c > capped && !work.buckets[capped].is_empty() { capped } else { c + 1 };
            continue;
        };
        let (d, loss) = ((c / 2) as u32, c % 2 == 1);
        let (us, them, k) = unpack(e);
        let l = slice(k).local(us, them) as usize;
        if work.val[k][l] != 0 {
            continue;
        }
        work.val[k][l] = byte_of(d, loss, ctx.limit);
        walk_back(ctx, work, us, them, d, loss, slice(partner(k)), partner(k));
    }
    // 3. Draws stay 0; mirror images take their canonical position's value.
    crate::slices::store_pair(&ctx.classes, &ctx.stores, pair, &mut work.val);
}

/// Looks the queued captures' successors up and queues their positions:
/// a capture is a progress move, so its successor's value enters as an exit.
fn flush_captures(captures: &mut Vec<(u64, TableView<'_>, u64)>, buckets: &mut [Vec<u64>], limit: u32) {
    for group in captures.chunk_by(|a, b| a.0 == b.0) {
        let mut exits = Exits::default();
        for (_, table, i) in group {
            exits.add(exit_of(*table.byte(*i), limit));
        }
        if let Some(c) = exits.settled() {
            buckets[c].push(group[0].0);
        }
    }
    captures.clear();
}

/// Passes a settled position's distance back over the sideways moves that
/// lead to it, to the partner slice `target` (side `k` of the pair).
#[allow(clippy::too_many_arguments)]
fn walk_back(ctx: &Context<'_>, work: &mut Work<'_>, us: u32, them: u32, d: u32, loss: bool, target: &Slice, k: usize) {
    crate::slices::open_predecessors(&ctx.sideways, work, (us, them), target, k, |work, l, e, weight| {
        if loss {
            work.buckets[code(d + 1, false)].push(e);
        } else {
            let c = work.count[k][l];
            let left = (c & !NEVER_LOSES).saturating_sub(weight);
            work.count[k][l] = (c & NEVER_LOSES) | left;
            let most = u32::from(work.worst[k][l]).max(d + 1).min(CAP);
            work.worst[k][l] = most as u8;
            if left == 0 && c & NEVER_LOSES == 0 {
                work.buckets[code(most, true)].push(e);
            }
        }
    });
}

/// The value a position must hold given its moves, each a progress move or
/// not with the byte of the position it reaches (the local rule `alq tb
/// verify` checks every entry against): the best that a move gives its
/// mover ([`Dtz::for_mover`]), a loss in 0 without moves; `None` for a byte
/// never written. The local rule cannot tell a cursed win from a draw that
/// claims one around a cycle, so `verify` also compares each entry's
/// infinite-game value with the folder's other tables.
pub(crate) fn expected(moves: impl IntoIterator<Item = (bool, u8)>) -> Option<Dtz> {
    let mut best = Dtz::Loss(0);
    for (progress, byte) in moves {
        let value = Dtz::from_byte(byte)?.for_mover(progress);
        if value.preference() > best.preference() {
            best = value;
        }
    }
    Some(best)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_round_trip() {
        for b in 0..=255u8 {
            if let Some(v) = Dtz::from_byte(b) {
                assert_eq!(v.to_byte(), Some(b), "{v}");
            }
        }
        assert_eq!(Dtz::Win(61).to_byte(), None);
        assert_eq!(Dtz::Loss(0).to_byte(), Some(64));
        assert_eq!(Dtz::from_byte(63), None);
    }

    #[test]
    fn the_rule_counts_what_was_played() {
        assert_eq!(Dtz::Win(10).under_rule(50), crate::Wdl::Win);
        assert_eq!(Dtz::Win(10).under_rule(51), crate::Wdl::Draw);
        assert_eq!(Dtz::Loss(0).under_rule(60), crate::Wdl::Loss);
        assert_eq!(Dtz::CursedWin.under_rule(0), crate::Wdl::Draw);
        assert_eq!(Dtz::Win(10).at_count(50), Dtz::Win(10));
        assert_eq!(Dtz::Win(10).at_count(51), Dtz::CursedWin);
        assert_eq!(Dtz::Loss(3).at_count(58), Dtz::BlessedLoss);
        assert_eq!(Dtz::Draw.at_count(60), Dtz::Draw);
        assert_eq!(Dtz::CursedWin.infinite(), crate::Wdl::Win);
        assert_eq!(Dtz::BlessedLoss.infinite(), crate::Wdl::Loss);
    }
}
