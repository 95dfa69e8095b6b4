//! One threshold search: batches of expansions, each followed by an
//! analysis of the whole graph (the two attractors, then proof numbers that
//! choose the next batch), until the root is settled, nothing is left to
//! expand or the budget ends; then what the search settled is kept and its
//! result put together.

use std::time::{Duration, Instant};

use alq_engine::{Move, Position, Side};

use super::pn::{proof_numbers, select, Chosen};
use super::{slot_status, Known, Outcome, Status, ThresholdProgress, ThresholdResult, ThresholdSolver, INF};
use crate::budget::Budget;
use crate::compact::{frontier, CompactGraph, LEAF_LOST, LEAF_WON};
use crate::error::SolveError;
use crate::goal::Goal;
use crate::predecessors::Predecessors;
use crate::search_state::SearchState;
use crate::store::answer_bit;

/// One call of [`ThresholdSolver::solve_resumable`]: the search's state
/// (with its graph) and the counts of this call.
pub(super) struct Run {
    start: Instant,
    attacker: Side,
    pub(super) state: SearchState,
    /// Positions expanded by earlier runs of a resumed search.
    pub(super) prior: u64,
    /// Positions expanded by this call.
    pub(super) nodes: u64,
    tb_hits: u64,
    store_hits: u64,
    rounds: u32,
    peak: usize,
    out_of_budget: bool,
    /// How long the last analysis of the graph took: the next one, and
    /// keeping what it settled, take about as long, so expansions stop
    /// that much before the time ends.
    last_analysis: Duration,
    /// When the state was last saved (or the run began).
    pub(super) last_save: Instant,
}

impl ThresholdSolver<'_> {
    /// Searches `goal` from `pos` within `budget`, continuing `resume` when
    /// given (a state of the same position, win question, rules, tables and
    /// certificate setting). When the budget runs out before the root is
    /// settled, the search's state comes back with the result.
    pub fn solve_resumable(
        &mut self,
        pos: &Position,
        goal: Goal,
        budget: &Budget,
        resume: Option<SearchState>,
        progress: &mut dyn FnMut(&ThresholdProgress),
    ) -> Result<(ThresholdResult, Option<SearchState>), SolveError> {
        let start = Instant::now();
        if let Some(e) = self.eval.as_mut() {
            e.set_rules(self.rules);
            e.reset(pos);
        }
        let state = self.start_state(pos, goal, resume)?;
        let mut run = Run::new(start, state);
        if run.state.graph.len() == 0 {
            // The root is always expanded, so that its best move is known.
            let (attacker, g) = (run.attacker, &mut run.state.graph);
            self.create(g, pos, pos.key(), attacker, &mut run.tb_hits, &mut run.store_hits)?;
            run.nodes = 1;
        }
        let status = self.rounds(&mut run, budget, progress)?;
        self.finish(run, pos, goal, &status)
    }

    /// Expansions and analyses, round after round; the standing of every
    /// node after the last analysis.
    fn rounds(
        &mut self,
        run: &mut Run,
        budget: &Budget,
        progress: &mut dyn FnMut(&ThresholdProgress),
    ) -> Result<Vec<Status>, SolveError> {
        let mut batch: Vec<Chosen> = Vec::new();
        let mut last: Option<Vec<Status>> = None;
        loop {
            let expanded = self.expand_batch(run, &batch, budget)?;
            if let Some(status) = last.take().filter(|_| expanded == 0 && run.out_of_budget) {
                // Out of time before the first expansion: the graph is as
                // the last analysis left it, and so are the standings.
                return Ok(status);
            }
            let analysed = Instant::now();
            let status = self.analyse(run);
            run.last_analysis = analysed.elapsed();
            progress(&run.progress(status[0]));
            if status[0] != Status::Open || run.out_of_budget {
                return Ok(status);
            }
            self.save_checkpoint(run)?;
            let want = self.min_batch.max((run.prior + run.nodes) as usize / 8);
            batch = select(&mut run.state.graph, &status, run.attacker, self.cycle_aware, want);
            if batch.is_empty() {
                return Ok(status);
            }
            last = Some(status);
        }
    }

    /// Expands the chosen slots of `batch` (a position already in the graph
    /// is linked) until the budget ends; the slots left over get back what
    /// they held. Returns how many slots were expanded.
    fn expand_batch(&mut self, run: &mut Run, batch: &[Chosen], budget: &Budget) -> Result<usize, SolveError> {
        let g = &mut run.state.graph;
        let mut done = 0;
        // The analysis after this batch, and keeping what it settles, each
        // about as long as the last analysis (the batch grows the graph by
        // an eighth at most).
        let reserve = run.last_analysis.saturating_mul(2);
        for c in batch {
            if budget.spent_keeping(run.nodes, run.start, g.memory_with_analysis(), reserve) || !g.has_room(256) {
                run.out_of_budget = true;
                break;
            }
            done += 1;
            let parent = Position::from_key_unchecked(g.keys[c.parent as usize]);
            let j = (c.at - g.first[c.parent as usize]) as usize;
            let child = parent.play(parent.legal_moves_in(self.rules)[j]);
            let k = child.key();
            let id = match g.find(k) {
                Some(id) => id,
                None => {
                    run.nodes += 1;
                    self.create(g, &child, k, run.attacker, &mut run.tb_hits, &mut run.store_hits)?
                }
            };
            g.set_slot(c.at as usize, id);
        }
        for c in &batch[done..] {
            g.slots[c.at as usize] = c.was;
        }
        Ok(done)
    }

    /// Makes `pos` (key `k`, not in the graph) a node and generates its
    /// moves: successors already in the graph are linked, those whose answer
    /// is known become leaf slots, the others frontier slots with initial
    /// numbers.
    fn create(
        &mut self,
        g: &mut CompactGraph,
        pos: &Position,
        k: u64,
        attacker: Side,
        tb_hits: &mut u64,
        store_hits: &mut u64,
    ) -> Result<u32, SolveError> {
        let id = g.open(k);
        for mv in pos.legal_moves_in(self.rules) {
            let child = pos.play(mv);
            let s = match g.find(child.key()) {
                Some(c) => c,
                None => match self.known(&child, attacker)? {
                    Some((wins, source)) => {
                        match source {
                            Known::Tables => *tb_hits += 1,
                            Known::Store => *store_hits += 1,
                            Known::End => {}
                        }
                        if wins {
                            LEAF_WON
                        } else {
                            LEAF_LOST
                        }
                    }
                    None => {
                        let (pn, dn) = self.initial_numbers(&child, attacker);
                        frontier(pn, dn)
                    }
                },
            };
            g.push_slot(s);
        }
        g.close();
        Ok(id)
    }

    /// One analysis round: the standing of every node and, while the root
    /// is open, the proof numbers that guide the next batch.
    fn analyse(&self, run: &mut Run) -> Vec<Status> {
        let g = &mut run.state.graph;
        if self.refresh {
            g.refresh(self.rules);
        }
        let preds = g.predecessors();
        let status = standings(g, run.attacker, &preds);
        run.peak = run.peak.max(g.memory_with_analysis());
        run.rounds += 1;
        if status[0] == Status::Open {
            proof_numbers(g, &status, run.attacker, self.cycle_aware, &preds);
        }
        status
    }

    /// Keeps what the search settled (values of positions, not of paths),
    /// and puts the result together; the state comes back while the root is
    /// open.
    fn finish(
        &mut self,
        mut run: Run,
        pos: &Position,
        goal: Goal,
        status: &[Status],
    ) -> Result<(ThresholdResult, Option<SearchState>), SolveError> {
        let (attacker, negated) = goal.win_question();
        let g = &run.state.graph;
        self.keep_settled(g, status, attacker);
        let win = status[0].settled();
        let outcome = match win {
            None => Outcome::Unknown,
            Some(w) if w != negated => Outcome::Proven,
            Some(_) => Outcome::Disproven,
        };
        let best_move = win.and_then(|w| self.best_move(pos, g, status, attacker, w));
        let certificate = match (win, self.certificates) {
            (Some(w), true) => self.certificate(g, status, attacker, w)?,
            _ => None,
        };
        if self.certificates {
            self.remember_held(g, status, attacker)?;
            if let Some(cert) = certificate.as_ref().filter(|c| c.goal.is_win()) {
                self.remember(cert.goal, &cert.entries);
            }
        }
        let result = ThresholdResult {
            goal,
            outcome,
            certificate,
            best_move,
            nodes: run.nodes,
            resumed_nodes: run.prior,
            graph_nodes: g.len(),
            slots: g.slots.len(),
            tb_hits: run.tb_hits,
            store_hits: run.store_hits,
            memory_bytes: run.peak,
            elapsed: run.start.elapsed(),
            rounds: run.rounds,
            out_of_budget: run.out_of_budget,
        };
        run.state.nodes = run.prior + run.nodes;
        Ok((result, win.is_none().then_some(run.state)))
    }

    /// Adds the settled nodes' answers to the store while it has room; the
    /// root's and those of the positions to keep always, room or not.
    fn keep_settled(&mut self, g: &CompactGraph, status: &[Status], attacker: Side) {
        for (i, &s) in status.iter().enumerate() {
            if s == Status::Open {
                continue;
            }
            let key = g.keys[i];
            if i == 0 || self.store.len() < self.max_store || self.keep_always.contains(&key) {
                *self.store.entry(key).or_insert(0) |= answer_bit(attacker, s == Status::Won);
            }
        }
    }

    /// When the side with the strategy for the settled root (the attacker if
    /// it `wins`, else the defender) is to move there: a move that keeps its
    /// result.
    fn best_move(
        &self,
        pos: &Position,
        g: &CompactGraph,
        status: &[Status],
        attacker: Side,
        wins: bool,
    ) -> Option<Move> {
        let holder = if wins { attacker } else { attacker.opponent() };
        if pos.side_to_move() != holder {
            return None;
        }
        let keep = Status::of(wins);
        pos.legal_moves_in(self.rules)
            .into_iter()
            .zip(g.successors(0).iter())
            .find(|(_, &s)| slot_status(s, status) == keep)
            .map(|(mv, _)| mv)
    }
}

impl Run {
    /// A run that continues `state` (whose graph is empty for a new search).
    fn new(start: Instant, state: SearchState) -> Run {
        Run {
            start,
            attacker: state.attacker,
            prior: state.nodes,
            state,
            nodes: 0,
            tb_hits: 0,
            store_hits: 0,
            rounds: 0,
            peak: 0,
            out_of_budget: false,
            last_analysis: Duration::ZERO,
            last_save: Instant::now(),
        }
    }

    /// The progress line after a round whose root standing is `root`.
    fn progress(&self, root: Status) -> ThresholdProgress {
        let g = &self.state.graph;
        // A settled root: 0 for the side that won, infinite for the other.
        let (proof_number, disproof_number) = match root {
            Status::Won => (0, INF),
            Status::NotWon => (INF, 0),
            Status::Open => (g.pn[0], g.dn[0]),
        };
        ThresholdProgress {
            nodes: self.prior + self.nodes,
            graph_nodes: g.len(),
            proof_number,
            disproof_number,
            elapsed: self.start.elapsed(),
        }
    }
}

/// The standing of every node: won inside the sure attractor (frontier
/// slots counted as not won), not won outside the possible one (frontier
/// slots counted as won), open in between.
fn standings(g: &CompactGraph, attacker: Side, preds: &Predecessors) -> Vec<Status> {
    let mut status: Vec<Status> = g
        .attractor(attacker, preds, true)
        .into_iter()
        .map(|r| if r == INF { Status::NotWon } else { Status::Open })
        .collect();
    for (s, r) in status.iter_mut().zip(g.attractor(attacker, preds, false)) {
        if r != INF {
            *s = Status::Won;
        }
    }
    status
}
