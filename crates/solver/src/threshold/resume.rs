//! Saving and continuing a threshold search: the state a search starts
//! from (a saved one only when it belongs to the search asked for), and the
//! checkpoints an unsettled search writes.

use std::time::Instant;

use alq_engine::Position;

use super::search::Run;
use super::ThresholdSolver;
use crate::compact::CompactGraph;
use crate::error::SolveError;
use crate::goal::Goal;
use crate::search_state::SearchState;

impl ThresholdSolver<'_> {
    /// The state a search of `goal` from `pos` starts from: `resume`, when it
    /// was made by the same search (position, win question, rules, tables
    /// and certificate setting), or a new state with an empty graph.
    pub(super) fn start_state(
        &self,
        pos: &Position,
        goal: Goal,
        resume: Option<SearchState>,
    ) -> Result<SearchState, SolveError> {
        let wanted = SearchState {
            rules: self.rules,
            attacker: goal.win_question().0,
            root: pos.key(),
            table_pieces: self.table_pieces(),
            certificates: self.certificates,
            nodes: 0,
            graph: CompactGraph::default(),
        };
        let Some(state) = resume else { return Ok(wanted) };
        match mismatch(&state, &wanted, pos, goal) {
            Some(why) => Err(SolveError::StateMismatch(why)),
            None => Ok(state),
        }
    }

    /// Saves the run's state when a checkpoint is asked for and due.
    pub(super) fn save_checkpoint(&self, run: &mut Run) -> Result<(), SolveError> {
        if let Some((path, every)) = &self.checkpoint {
            if run.last_save.elapsed() >= *every {
                run.state.nodes = run.prior + run.nodes;
                run.state.save(path)?;
                run.last_save = Instant::now();
            }
        }
        Ok(())
    }
}

/// Why a saved `state` does not belong to the search of `goal` from `pos`
/// (whose new state is `wanted`), if it does not.
fn mismatch(state: &SearchState, wanted: &SearchState, pos: &Position, goal: Goal) -> Option<String> {
    if state.rules != wanted.rules {
        Some(format!("its rules are {}, not {}", state.rules, wanted.rules))
    } else if state.root != wanted.root {
        Some(format!("it is about {}, not {pos}", state.root_position()))
    } else if state.attacker != wanted.attacker {
        Some(format!("it asks whether {:?} wins, {goal} asks whether {:?} does", state.attacker, wanted.attacker))
    } else if state.table_pieces != wanted.table_pieces {
        Some(format!(
            "its leaves come from tables to {} pieces, these go to {}",
            state.table_pieces, wanted.table_pieces
        ))
    } else if state.certificates != wanted.certificates {
        Some("it was made with certificates asked for; the search must be resumed the same way".into())
    } else {
        None
    }
}
