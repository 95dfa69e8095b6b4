//! A deliberately simple second move generator, written straight from the
//! rule text with plain arrays and recursion, compared with the fast one on
//! many seeded random positions.

use std::collections::BTreeMap;

use alq_engine::{Bitboard, Point, Position, Side};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

#[derive(Clone, Copy, PartialEq)]
enum Cell {
    Empty,
    White,
    Black,
}

/// Is there a drawn line from (f, r) one step in direction (df, dr)?
fn line_step(f: i32, r: i32, df: i32, dr: i32) -> Option<(i32, i32)> {
    let (nf, nr) = (f + df, r + dr);
    if !(0..5).contains(&nf) || !(0..5).contains(&nr) {
        return None;
    }
    if df != 0 && dr != 0 && (f + r) % 2 != 0 {
        return None; // diagonals only through strong points
    }
    Some((nf, nr))
}

const ALL_DIRS: [(i32, i32); 8] = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, 1), (1, -1), (-1, -1)];

fn name(f: i32, r: i32) -> String {
    format!("{}{}", (b'a' + f as u8) as char, r + 1)
}

struct Reference {
    board: [Cell; 25],
    white_to_move: bool,
}

impl Reference {
    fn from_position(pos: &Position) -> Reference {
        let mut board = [Cell::Empty; 25];
        for (i, cell) in board.iter_mut().enumerate() {
            let p = Point::new(i as u8).unwrap();
            *cell = match pos.piece_at(p) {
                Some(Side::White) => Cell::White,
                Some(Side::Black) => Cell::Black,
                None => Cell::Empty,
            };
        }
        Reference { board, white_to_move: pos.side_to_move() == Side::White }
    }

    fn at(&self, f: i32, r: i32) -> Cell {
        self.board[(r * 5 + f) as usize]
    }

    fn forward(&self) -> i32 {
        if self.white_to_move {
            1
        } else {
            -1
        }
    }

    fn last_rank(&self) -> i32 {
        if self.white_to_move {
            4
        } else {
            0
        }
    }

    fn mine(&self) -> Cell {
        if self.white_to_move {
            Cell::White
        } else {
            Cell::Black
        }
    }

    fn theirs(&self) -> Cell {
        if self.white_to_move {
            Cell::Black
        } else {
            Cell::White
        }
    }

    /// Moving directions of a piece on rank r: forward, diagonally forward,
    /// sideways; only sideways on the last row.
    fn moving_dirs(&self, r: i32) -> Vec<(i32, i32)> {
        let fw = self.forward();
        if r == self.last_rank() {
            vec![(1, 0), (-1, 0)]
        } else {
            vec![(0, fw), (1, fw), (-1, fw), (1, 0), (-1, 0)]
        }
    }

    /// All complete jump paths from the origin, each as (landings, captured).
    fn jump_paths(
        &self,
        board: &mut [Cell; 25],
        origin: (i32, i32),
        at: (i32, i32),
        landings: &mut Vec<(i32, i32)>,
        captured: &mut Vec<(i32, i32)>,
        out: &mut Vec<(Vec<(i32, i32)>, Vec<(i32, i32)>)>,
    ) {
        let dirs = if landings.is_empty() { self.moving_dirs(at.1) } else { ALL_DIRS.to_vec() };
        let mut jumped = false;
        for (df, dr) in dirs {
            let Some(over) = line_step(at.0, at.1, df, dr) else { continue };
            let Some(land) = line_step(over.0, over.1, df, dr) else { continue };
            let oi = (over.1 * 5 + over.0) as usize;
            let li = (land.1 * 5 + land.0) as usize;
            if board[oi] != self.theirs() || board[li] != Cell::Empty || land == origin {
                continue;
            }
            jumped = true;
            board[oi] = Cell::Empty;
            landings.push(land);
            captured.push(over);
            self.jump_paths(board, origin, land, landings, captured, out);
            landings.pop();
            captured.pop();
            board[oi] = self.theirs();
        }
        if !jumped && !landings.is_empty() {
            out.push((landings.clone(), captured.clone()));
        }
    }

    /// Legal moves in canonical notation, sorted.
    fn moves(&self) -> Vec<String> {
        // (from, to, sorted captured) -> smallest landing index sequence
        let mut captures: BTreeMap<(i32, i32, Vec<i32>), Vec<i32>> = BTreeMap::new();
        let mut origins = BTreeMap::new();
        for r in 0..5 {
            for f in 0..5 {
                if self.at(f, r) != self.mine() {
                    continue;
                }
                let mut board = self.board;
                board[(r * 5 + f) as usize] = Cell::Empty; // the piece lifts off
                let mut out = Vec::new();
                self.jump_paths(&mut board, (f, r), (f, r), &mut Vec::new(), &mut Vec::new(), &mut out);
                for (landings, caps) in out {
                    let from = r * 5 + f;
                    let last = landings[landings.len() - 1];
                    let to = last.1 * 5 + last.0;
                    let mut set: Vec<i32> = caps.iter().map(|c| c.1 * 5 + c.0).collect();
                    set.sort();
                    let seq: Vec<i32> = landings.iter().map(|l| l.1 * 5 + l.0).collect();
                    let entry = captures.entry((from, to, set)).or_insert_with(|| seq.clone());
                    if seq < *entry {
                        *entry = seq;
                    }
                    origins.insert(from, (f, r));
                }
            }
        }
        let mut result = Vec::new();
        if !captures.is_empty() {
            for ((from, _, _), seq) in captures {
                let mut text = name(from % 5, from / 5);
                for l in seq {
                    text += &format!("x{}", name(l % 5, l / 5));
                }
                result.push(text);
            }
        } else {
            for r in 0..5 {
                for f in 0..5 {
                    if self.at(f, r) != self.mine() || r == self.last_rank() {
                        continue;
                    }
                    for (df, dr) in self.moving_dirs(r) {
                        if let Some((nf, nr)) = line_step(f, r, df, dr) {
                            if self.at(nf, nr) == Cell::Empty {
                                result.push(format!("{}-{}", name(f, r), name(nf, nr)));
                            }
                        }
                    }
                }
            }
        }
        result.sort();
        result
    }
}

fn fast_moves(pos: &Position) -> Vec<String> {
    let mut moves: Vec<String> = pos.legal_moves().iter().map(|m| m.to_string()).collect();
    moves.sort();
    moves
}

fn random_placement(rng: &mut ChaCha8Rng) -> Position {
    let mut points: Vec<u8> = (0..25).collect();
    points.shuffle(rng);
    let nw = rng.gen_range(1..=12);
    let nb = rng.gen_range(1..=12);
    let white = points[..nw].iter().fold(Bitboard::EMPTY, |b, &i| b.with(Point::new(i).unwrap()));
    let black = points[nw..nw + nb].iter().fold(Bitboard::EMPTY, |b, &i| b.with(Point::new(i).unwrap()));
    let side = if rng.gen_bool(0.5) { Side::White } else { Side::Black };
    Position::from_parts(white, black, side)
}

fn playout_positions(rng: &mut ChaCha8Rng, out: &mut Vec<Position>) {
    let mut pos = Position::start();
    for _ in 0..200 {
        out.push(pos);
        let moves = pos.legal_moves();
        let Some(&mv) = moves.choose(rng) else { break };
        pos = pos.play(mv);
    }
}

#[test]
fn reference_agrees_on_random_positions() {
    let mut rng = ChaCha8Rng::seed_from_u64(20261129);
    let mut positions = Vec::new();
    while positions.len() < 6_000 {
        playout_positions(&mut rng, &mut positions);
    }
    for _ in 0..6_000 {
        positions.push(random_placement(&mut rng));
    }
    let mut captures = 0;
    let mut multi = 0;
    for pos in &positions {
        let expected = Reference::from_position(pos).moves();
        assert_eq!(fast_moves(pos), expected, "position {pos}");
        captures += expected.iter().filter(|m| m.contains('x')).count();
        multi += expected.iter().filter(|m| m.matches('x').count() >= 2).count();
    }
    assert!(positions.len() >= 12_000);
    // The sample must exercise what is being compared.
    assert!(captures > 1_000 && multi > 100, "captures {captures}, multi-jumps {multi}");
}

#[test]
fn reference_agrees_with_vector_start() {
    assert_eq!(Reference::from_position(&Position::start()).moves(), ["b2-c3", "c2-c3", "d2-c3", "d3-c3"]);
}
