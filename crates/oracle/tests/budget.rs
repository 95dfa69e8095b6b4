//! The oracle keeps its budget: a position and its moves share one budget
//! (nodes exactly, time within a margin), and a single question without
//! tables on a hard opening position ends near its time, not rounds later.

use std::time::{Duration, Instant};

use alq_engine::{Hce, HceWeights, Position, RuleSet};
use alq_oracle::{Oracle, Value};
use alq_solver::Budget;

/// The position: ten plies into `d2-c3`, which the atlas leaves
/// open, 20 pieces, far from any table.
fn hard() -> Position {
    let line = "d2-c3 b4xd2 b2xb4 b5xb3 e1xc3 d4xd2xb4 d1-e1 b3-b2 b1xb3xb5 e4-d4";
    line.split_whitespace().fold(Position::start(), |pos, text| pos.play(pos.parse_move(text).unwrap()))
}

fn oracle(budget: Budget) -> Oracle<'static> {
    Oracle::new(RuleSet::BrainKing, None, Box::new(Hce::new(HceWeights::default())), budget)
}

#[test]
fn a_position_and_its_moves_share_a_node_budget() {
    let pos = hard();
    let moves = pos.legal_moves().len() as u64;
    assert!(moves >= 3, "{pos}: {moves} moves");
    let o = oracle(Budget::nodes(3_000));
    let (value, answers) = o.value_and_moves(&pos).unwrap();
    assert_eq!(answers.len() as u64, moves);
    let spent = value.nodes + answers.iter().map(|(_, a)| a.nodes).sum::<u64>();
    // Each question expands its root whatever is left, so at most one
    // node a question over the budget.
    assert!(spent <= 3_000 + moves + 1, "{spent} nodes spent of 3,000 over {} questions", moves + 1);
    assert!(value.nodes > 0 && value.nodes <= 1_501, "the position's half: {} nodes", value.nodes);
    // The position is open at this budget: every question was searched.
    assert_eq!(value.value, Value::Unknown, "{pos}");
    // Each move alone gets every node: the per-move answers spend more.
    let each = oracle(Budget::nodes(3_000)).move_values_each(&pos).unwrap();
    let alone = each.iter().map(|(_, a)| a.nodes).sum::<u64>();
    assert!(alone > 3_000 + moves, "moves asked alone spent only {alone} nodes");
}

#[test]
fn time_budgets_end_on_time_without_tables() {
    let pos = hard();
    // Generous margins: the point is that the searches stop inside their
    // rounds, not some rounds later (every question used to take its own
    // full budget, 11 budgets for this position and its moves).
    let budget = Duration::from_millis(300);
    let o = oracle(Budget::time(budget));
    let start = Instant::now();
    let answer = o.value(&pos).unwrap();
    assert_eq!(answer.value, Value::Unknown);
    assert!(answer.elapsed >= budget / 2, "stopped after {:?} of {budget:?}", answer.elapsed);
    assert!(start.elapsed() < budget + Duration::from_millis(700), "one question took {:?}", start.elapsed());
    let start = Instant::now();
    let (_, moves) = o.value_and_moves(&pos).unwrap();
    let took = start.elapsed();
    assert!(moves.len() >= 3);
    assert!(took < budget + Duration::from_millis(700), "the position and {} moves took {took:?}", moves.len());
}
