//! The classic rule set: hand-made positions for every rule that differs from
//! BrainKing's, and a slow move generator written straight from the classic
//! rule text (plain arrays, recursion, no tables) that checks the fast one's
//! moves, perft and path counts.

use std::collections::BTreeMap;

use alq_engine::{
    perft_parallel, perft_paths, perft_with, Bitboard, Game, GameConfig, PerftCount, Point, Position, RuleSet, Side,
    CLASSIC_RULES,
};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const CLASSIC: RuleSet = RuleSet::Classic;

fn sorted(moves: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut v: Vec<String> = moves.into_iter().collect();
    v.sort();
    v
}

fn classic_moves(pos: &Position) -> Vec<String> {
    sorted(pos.legal_moves_in(CLASSIC).iter().map(|m| m.to_string()))
}

fn brainking_moves(pos: &Position) -> Vec<String> {
    sorted(pos.legal_moves().iter().map(|m| m.to_string()))
}

fn pos(text: &str) -> Position {
    text.parse().unwrap()
}

// ---------------------------------------------------------------------------
// Hand-made positions, one per differing rule.

#[test]
fn a_piece_may_step_backward() {
    // A lone White piece on c3 (a strong point) with Black far away.
    let p = pos("B..../...../..W../...../..... w");
    let classic = classic_moves(&p);
    for backward in ["c3-b2", "c3-c2", "c3-d2"] {
        assert!(classic.contains(&backward.to_string()), "{backward} missing from {classic:?}");
    }
    assert_eq!(classic.len(), 8, "every line from c3: {classic:?}");
    let brainking = brainking_moves(&p);
    assert!(brainking.iter().all(|m| !m.ends_with("2")), "BrainKing has no backward move: {brainking:?}");
    assert_eq!(brainking.len(), 5);
    // Black's backward is towards rank 5.
    let b = pos("...../...../..B../...../W.... b");
    assert!(classic_moves(&b).contains(&"c3-c4".to_string()));
    assert!(!brainking_moves(&b).contains(&"c3-c4".to_string()));
}

#[test]
fn the_first_jump_may_go_backward() {
    // White c3, Black c2 with c1 empty: only the backward jump captures.
    let p = pos("B..../...../..W../..B../..... w");
    assert_eq!(classic_moves(&p), ["c3xc1"]);
    // Under BrainKing's rules that jump does not exist, so White moves quietly.
    assert!(brainking_moves(&p).iter().all(|m| !m.contains('x')));
    // Diagonally backward too: Black b2, a1 empty.
    let d = pos("B..../...../..W../.B.../..... w");
    assert_eq!(classic_moves(&d), ["c3xa1"]);
}

#[test]
fn a_piece_on_its_last_row_moves_and_captures_in_every_direction() {
    // White on c5 (its last row) and one Black piece beside, below or
    // diagonally below it, with the point beyond empty.
    for (board, jump, sideways) in [
        (".BW../...../...../...../..... w", "c5xa5", true),
        ("..WB./...../...../...../..... w", "c5xe5", true),
        ("..W../..B../...../...../..... w", "c5xc3", false),
        ("..W../.B.../...../...../..... w", "c5xa3", false),
        ("..W../...B./...../...../..... w", "c5xe3", false),
    ] {
        let p = pos(board);
        assert_eq!(classic_moves(&p), [jump], "{board}");
        // BrainKing: frozen, a first jump only sideways (and no simple move).
        let expected: Vec<&str> = if sideways { vec![jump] } else { vec![] };
        assert_eq!(brainking_moves(&p), expected, "{board}");
    }
    // Simple moves from the last row: none under BrainKing, every line in classic.
    let q = pos("..W../...../...../...../B.... w");
    assert_eq!(classic_moves(&q), ["c5-b4", "c5-b5", "c5-c4", "c5-d4", "c5-d5"]);
    assert!(brainking_moves(&q).is_empty());
    assert!(q.is_lost() && !q.is_lost_in(CLASSIC));
}

#[test]
fn a_capture_may_loop_back_to_its_starting_point() {
    // a1 jumps b1, c2, b3, a2 around the square and lands on a1 again.
    let p = pos("....B/...../.B.../B.B../WB... w");
    let classic = classic_moves(&p);
    assert!(classic.contains(&"a1xc1xc3xa3xa1".to_string()), "{classic:?}");
    let mv = p.legal_moves_in(CLASSIC).into_iter().find(|m| m.to_string() == "a1xc1xc3xa3xa1").unwrap();
    assert_eq!(mv.from(), mv.to());
    let after = p.play(mv);
    assert_eq!(after.to_string(), "....B/...../...../...../W.... b");
    assert_eq!(classic, ["a1xc1xc3xa3xa1"]);
    // The other direction round the square is the same move: one move, two paths.
    assert_eq!(p.parse_move_in(CLASSIC, "a1xa3xc3xc1xa1").unwrap(), mv);
    let mut paths = alq_engine::MoveList::new();
    p.generate_paths(&CLASSIC_RULES, &mut paths);
    let loops = paths.iter().filter(|m| m.from() == m.to()).count();
    assert_eq!(loops, 2, "{:?}", paths.iter().map(|m| m.to_string()).collect::<Vec<_>>());
    // BrainKing never lands on the origin: the longest capture stops on a3 or c1.
    let brainking = brainking_moves(&p);
    assert!(brainking.iter().all(|m| !m.ends_with("xa1")), "{brainking:?}");
    assert!(p.parse_move("a1xc1xc3xa3xa1").is_err());
}

#[test]
fn backward_and_sideways_moves_are_not_progress() {
    let start = pos("B..../...../..W../...../..... w");
    let mut game = Game::new(start, GameConfig { no_progress_limit: Some(3), ..GameConfig::with_rules(CLASSIC) });
    game.play_text("c3-c2").unwrap(); // backward
    assert_eq!(game.quiet_plies(), 1);
    game.play_text("a5-a4").unwrap(); // Black forward
    assert_eq!(game.quiet_plies(), 0);
    game.play_text("c2-b2").unwrap(); // sideways
    game.play_text("a4-b4").unwrap(); // sideways
    game.play_text("b2-a1").unwrap(); // diagonally backward
    assert!(game.is_over(), "three quiet plies end the game");
    // BrainKing refuses the backward move.
    let mut bk = Game::new(start, GameConfig::default());
    assert!(bk.play_text("c3-c2").is_err());
}

#[test]
fn rule_set_names_round_trip() {
    for r in RuleSet::ALL {
        assert_eq!(r.name().parse::<RuleSet>().unwrap(), r);
    }
    let err = "standard".parse::<RuleSet>().unwrap_err();
    assert!(err.contains("brainking") && err.contains("classic"), "{err}");
    assert_eq!(RuleSet::default(), RuleSet::BrainKing);
    assert_eq!(Position::start_of(CLASSIC), Position::start());
}

// ---------------------------------------------------------------------------
// The slow generator.

#[derive(Clone, Copy, PartialEq, Eq)]
enum Cell {
    Empty,
    Mine,
    Theirs,
}

/// A board seen from the side to move: `Mine` pieces move, `Theirs` are jumped.
#[derive(Clone)]
struct Board {
    cells: [[Cell; 5]; 5], // [rank][file]
    white_to_move: bool,
}

/// The point one step from (f, r) along (df, dr) when a drawn line joins them:
/// orthogonal lines everywhere, diagonals through points with f + r even.
fn step(f: i32, r: i32, df: i32, dr: i32) -> Option<(i32, i32)> {
    let (nf, nr) = (f + df, r + dr);
    if !(0..5).contains(&nf) || !(0..5).contains(&nr) {
        return None;
    }
    if df != 0 && dr != 0 && (f + r) % 2 == 1 {
        return None;
    }
    Some((nf, nr))
}

fn point_name(f: i32, r: i32) -> String {
    format!("{}{}", (b'a' + f as u8) as char, r + 1)
}

/// One classic move: origin, landings in order, captured points.
#[derive(Clone)]
struct SlowMove {
    from: (i32, i32),
    landings: Vec<(i32, i32)>,
    captured: Vec<(i32, i32)>,
}

impl SlowMove {
    fn to(&self) -> (i32, i32) {
        *self.landings.last().unwrap()
    }
    fn key(&self) -> ((i32, i32), (i32, i32), Vec<(i32, i32)>) {
        let mut c = self.captured.clone();
        c.sort();
        (self.from, self.to(), c)
    }
    fn text(&self) -> String {
        let mut s = point_name(self.from.0, self.from.1);
        let sep = if self.captured.is_empty() { "-" } else { "x" };
        for &(f, r) in &self.landings {
            s += sep;
            s += &point_name(f, r);
        }
        s
    }
}

impl Board {
    fn from_position(pos: &Position) -> Board {
        let me = pos.side_to_move();
        let mut cells = [[Cell::Empty; 5]; 5];
        for (r, row) in cells.iter_mut().enumerate() {
            for (f, cell) in row.iter_mut().enumerate() {
                let p = Point::new((r * 5 + f) as u8).unwrap();
                *cell = match pos.piece_at(p) {
                    Some(s) if s == me => Cell::Mine,
                    Some(_) => Cell::Theirs,
                    None => Cell::Empty,
                };
            }
        }
        Board { cells, white_to_move: me == Side::White }
    }

    fn at(&self, (f, r): (i32, i32)) -> Cell {
        self.cells[r as usize][f as usize]
    }

    fn set(&mut self, (f, r): (i32, i32), c: Cell) {
        self.cells[r as usize][f as usize] = c;
    }

    const DIRS: [(i32, i32); 8] = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, 1), (1, -1), (-1, -1)];

    /// Every complete jump path of the piece that has lifted off `origin`
    /// and now stands (in thought) on `at`. Classic: any line, any direction,
    /// from the first jump on; the origin is an empty point like any other.
    fn jumps(&mut self, at: (i32, i32), path: &mut SlowMove, out: &mut Vec<SlowMove>) {
        let mut extended = false;
        for (df, dr) in Board::DIRS {
            let Some(over) = step(at.0, at.1, df, dr) else { continue };
            let Some(land) = step(over.0, over.1, df, dr) else { continue };
            if self.at(over) != Cell::Theirs || self.at(land) != Cell::Empty {
                continue;
            }
            extended = true;
            self.set(over, Cell::Empty); // removed at once
            path.landings.push(land);
            path.captured.push(over);
            self.jumps(land, path, out);
            path.landings.pop();
            path.captured.pop();
            self.set(over, Cell::Theirs);
        }
        if !extended && !path.landings.is_empty() {
            out.push(path.clone());
        }
    }

    /// Every jump path (captures exist) or every simple move.
    fn paths(&self) -> Vec<SlowMove> {
        let mut out = Vec::new();
        for r in 0..5 {
            for f in 0..5 {
                if self.at((f, r)) != Cell::Mine {
                    continue;
                }
                let mut board = self.clone();
                board.set((f, r), Cell::Empty);
                let mut path = SlowMove { from: (f, r), landings: Vec::new(), captured: Vec::new() };
                board.jumps((f, r), &mut path, &mut out);
            }
        }
        if !out.is_empty() {
            return out;
        }
        for r in 0..5 {
            for f in 0..5 {
                if self.at((f, r)) != Cell::Mine {
                    continue;
                }
                for (df, dr) in Board::DIRS {
                    if let Some(to) = step(f, r, df, dr) {
                        if self.at(to) == Cell::Empty {
                            out.push(SlowMove { from: (f, r), landings: vec![to], captured: Vec::new() });
                        }
                    }
                }
            }
        }
        out
    }

    /// The moves in the sense of move identity: one per (origin, end,
    /// captured set), with the lexicographically smallest path by point index.
    fn moves(&self) -> Vec<SlowMove> {
        let index = |p: &(i32, i32)| p.1 * 5 + p.0;
        let mut best: BTreeMap<_, SlowMove> = BTreeMap::new();
        for m in self.paths() {
            let key = m.key();
            let seq: Vec<i32> = m.landings.iter().map(index).collect();
            match best.get(&key) {
                Some(b) if b.landings.iter().map(index).collect::<Vec<_>>() <= seq => {}
                _ => {
                    best.insert(key, m);
                }
            }
        }
        best.into_values().collect()
    }

    /// The board after `m`, seen from the opponent.
    fn play(&self, m: &SlowMove) -> Board {
        let mut next = self.clone();
        next.set(m.from, Cell::Empty);
        for &c in &m.captured {
            next.set(c, Cell::Empty);
        }
        next.set(m.to(), Cell::Mine);
        for row in next.cells.iter_mut() {
            for c in row.iter_mut() {
                *c = match *c {
                    Cell::Mine => Cell::Theirs,
                    Cell::Theirs => Cell::Mine,
                    Cell::Empty => Cell::Empty,
                };
            }
        }
        next.white_to_move = !self.white_to_move;
        next
    }

    fn perft(&self, depth: u32, paths: bool) -> u64 {
        if depth == 0 {
            return 1;
        }
        let moves = if paths { self.paths() } else { self.moves() };
        moves.iter().map(|m| self.play(m).perft(depth - 1, paths)).sum()
    }
}

#[test]
fn classic_perft_from_the_start_matches_the_slow_generator_to_depth_6() {
    let start = Position::start_of(CLASSIC);
    let slow = Board::from_position(&start);
    let mut last = 0;
    for depth in 1..=6 {
        let expected = slow.perft(depth, false);
        assert_eq!(perft_with(&CLASSIC_RULES, &start, depth), expected, "perft {depth}");
        assert_eq!(perft_parallel(CLASSIC, PerftCount::Moves, &start, depth), expected, "parallel perft {depth}");
        let expected_paths = slow.perft(depth, true);
        assert_eq!(perft_paths(&CLASSIC_RULES, &start, depth), expected_paths, "perft --paths {depth}");
        assert!(expected_paths >= expected);
        assert!(expected > last, "the tree grows");
        last = expected;
    }
    // The classic tree differs from BrainKing's: backward moves open it up.
    assert_ne!(perft_with(&CLASSIC_RULES, &start, 6), alq_engine::perft(&start, 6));
}

fn random_position(rng: &mut ChaCha8Rng) -> Position {
    let mut points: Vec<u8> = (0..25).collect();
    points.shuffle(rng);
    let nw = rng.gen_range(1..=12);
    let nb = rng.gen_range(1..=12);
    let bb = |ps: &[u8]| ps.iter().fold(Bitboard::EMPTY, |b, &i| b.with(Point::new(i).unwrap()));
    let side = if rng.gen_bool(0.5) { Side::White } else { Side::Black };
    Position::from_parts(bb(&points[..nw]), bb(&points[nw..nw + nb]), side)
}

#[test]
fn classic_moves_match_the_slow_generator_on_random_positions() {
    let mut rng = ChaCha8Rng::seed_from_u64(15_2026);
    let mut positions = Vec::new();
    // Random placements, and positions from random classic games.
    for _ in 0..3_000 {
        positions.push(random_position(&mut rng));
    }
    while positions.len() < 6_000 {
        let mut p = Position::start_of(CLASSIC);
        for _ in 0..120 {
            positions.push(p);
            let moves = p.legal_moves_in(CLASSIC);
            let Some(&m) = moves.choose(&mut rng) else { break };
            p = p.play(m);
        }
    }
    let (mut multi, mut loops, mut path_dups) = (0, 0, 0);
    for p in &positions {
        let slow = Board::from_position(p);
        let expected = sorted(slow.moves().iter().map(SlowMove::text));
        assert_eq!(classic_moves(p), expected, "position {p}");
        let mut paths = alq_engine::MoveList::new();
        p.generate_paths(&CLASSIC_RULES, &mut paths);
        let slow_paths = slow.paths();
        assert_eq!(paths.len(), slow_paths.len(), "paths of {p}");
        assert_eq!(
            sorted(paths.iter().map(|m| m.to_string())),
            sorted(slow_paths.iter().map(SlowMove::text)),
            "paths of {p}"
        );
        multi += expected.iter().filter(|m| m.matches('x').count() >= 2).count();
        loops += slow.moves().iter().filter(|m| !m.captured.is_empty() && m.from == m.to()).count();
        path_dups += slow_paths.len() - expected.len();
        // Every path, read back, names its move.
        for m in &paths {
            assert!(p.parse_move_in(CLASSIC, &m.to_string()).is_ok(), "{m} in {p}");
        }
    }
    // The sample exercises what is being compared.
    assert!(multi > 500 && loops > 0 && path_dups > 0, "multi {multi}, loops {loops}, path duplicates {path_dups}");
}
