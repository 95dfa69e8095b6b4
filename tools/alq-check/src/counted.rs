//! Values under the no-progress rule (a game is drawn after `limit` plies in a row without a capture or a forward
//! move; a side without a legal move has lost, and that is checked first), built in memory for the classes a
//! certificate's table leaves need, for [`crate::cert::Certificate::no_progress`].
//!
//! The game with its count is a game on (position, count). Winning at a count implies winning at every smaller
//! count (less of the rule is used up), and so does losing; so a position carries two thresholds, the largest count
//! at which its side to move wins and the largest at which it loses (−1: none). With N the limit:
//! - no legal move: lost at every count, N;
//! - a move that is progress (a capture, or a step towards the far row) restarts the count: it wins if the position
//!   reached is lost at count 0, and then at every count below N;
//! - any other move adds one to the count: the position reached lost at counts up to t makes this one won up to
//!   t − 1;
//! - lost: every move leads to a position won, likewise.
//!
//! Thresholds start at −1 and only rise: each class is swept once (captures settle from the finished smaller
//! classes), then every position whose thresholds rose makes its predecessors (by simple moves) compute theirs again
//! from all their moves, round after round, until no round raises anything. What this reaches is the least
//! solution, the wins and losses forced in finitely many plies. Every position is computed on its own (no mirror
//! images shared): slower, and simpler to trust.

use crate::tables::{class_size, flip, for_each_predecessor, index as position_index, position};
use crate::{for_each_capture, for_each_path, simple_moves, Move, Pos, Rules};

/// The two thresholds of one position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Both {
    win: i8,
    loss: i8,
}

const NEITHER: Both = Both { win: -1, loss: -1 };

/// Counted values of some classes under one rule set.
pub struct Counted {
    pub rules: Rules,
    pub limit: i8,
    /// Class (w, b), w ≥ b, at `w * 25 + b`; empty until built.
    classes: Vec<Vec<Both>>,
}

/// Whether `m`, played by the side to move in `pos`, is progress: a capture or a step towards its far row.
pub fn is_progress(pos: &Pos, m: &Move) -> bool {
    let (from, to) = (m.from / 5, m.to / 5);
    m.captured != 0 || if pos.black_to_move { to < from } else { to > from }
}

impl Counted {
    /// The values of `wanted` and of every class they lead to, under a rule of `limit` plies (1 to 60).
    pub fn build(rules: Rules, wanted: &[(usize, usize)], limit: u8) -> Counted {
        let mut counted =
            Counted { rules, limit: limit.min(60) as i8, classes: (0..25 * 25).map(|_| Vec::new()).collect() };
        for (w, b) in crate::tables::Tables::plan(wanted) {
            counted.build_class(w, b);
        }
        counted
    }

    fn both(&self, pos: &Pos) -> Option<Both> {
        let (w, b) = pos.class();
        let pos = if w < b { flip(pos) } else { *pos };
        let class = &self.classes[pos.class().0 * 25 + pos.class().1];
        (!class.is_empty()).then(|| class[position_index(&pos)])
    }

    /// For the side to move at count 0: `Some(Ok(d))` won within the rule, `d` plies to the next progress move or
    /// the end; `Some(Err(d))` lost, likewise; `None` neither (a draw, or a win or loss the rule turns into a draw),
    /// or a class not built.
    pub fn distance(&self, pos: &Pos) -> Option<Result<u32, u32>> {
        let both = self.both(pos)?;
        let d = |t: i8| (self.limit - t) as u32;
        if both.win >= 0 {
            Some(Ok(d(both.win)))
        } else if both.loss >= 0 {
            Some(Err(d(both.loss)))
        } else {
            None
        }
    }

    /// A position's thresholds from its moves' successors as they stand (`this`: its own class, being built).
    fn by_moves(&self, this: &[Both], pos: &Pos) -> Both {
        let last = self.limit - 1;
        let (mut win, mut loss, mut any) = (-1i8, last, false);
        for_each_path(self.rules, pos, &mut |m| {
            any = true;
            let child = pos.play(m);
            let after = if m.captured != 0 {
                self.both(&child).expect("smaller classes are built first")
            } else {
                this[position_index(&child)]
            };
            let (w, l) = if is_progress(pos, m) {
                (if after.loss >= 0 { last } else { -1 }, if after.win >= 0 { last } else { -1 })
            } else {
                ((after.loss - 1).max(-1), (after.win - 1).max(-1))
            };
            win = win.max(w);
            loss = loss.min(l);
        });
        if any {
            Both { win, loss }
        } else {
            Both { win: -1, loss: self.limit }
        }
    }

    fn build_class(&mut self, w: usize, b: usize) {
        let n = 2 * class_size(w, b);
        let mut this = vec![NEITHER; n];
        let mut frontier = Vec::new();
        // Each position once: captures and positions without a move settle now (their successors are in finished
        // classes, or there are none).
        for (i, slot) in this.iter_mut().enumerate() {
            let pos = position(w, b, i);
            if for_each_capture(self.rules, &pos, &mut |_| {}) || simple_moves(self.rules, &pos) == 0 {
                *slot = self.by_moves(&[], &pos);
                if *slot != NEITHER {
                    frontier.push(i);
                }
            }
        }
        let mut queued = vec![false; n];
        while !frontier.is_empty() {
            let mut next = Vec::new();
            for &i in &frontier {
                let pos = position(w, b, i);
                for_each_predecessor(self.rules, &pos, &mut |p| {
                    if for_each_capture(self.rules, &p, &mut |_| {}) {
                        return; // it had a capture, so it could not have moved simply
                    }
                    let j = position_index(&p);
                    let now = self.by_moves(&this, &p);
                    if now != this[j] {
                        this[j] = now;
                        if !queued[j] {
                            queued[j] = true;
                            next.push(j);
                        }
                    }
                });
            }
            for &j in &next {
                queued[j] = false;
            }
            frontier = next;
        }
        self.classes[w * 25 + b] = this;
    }
}
