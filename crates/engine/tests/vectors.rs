//! Checks the fast move generator against the independent vectors in
//! `tests/data/moves.txt` (copied from the project's shared vectors): every
//! block's sorted legal moves and every perft count.

use alq_engine::{perft, Position};

struct Block {
    id: String,
    position: String,
    moves: Vec<String>,
    perft: Vec<(u32, u64)>,
}

fn read_blocks() -> Vec<Block> {
    let text = include_str!("data/moves.txt");
    let mut blocks: Vec<Block> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim_end();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (key, rest) = line.split_once(' ').unwrap_or((line, ""));
        match key {
            "id" => blocks.push(Block {
                id: rest.to_string(),
                position: String::new(),
                moves: Vec::new(),
                perft: Vec::new(),
            }),
            "position" => blocks.last_mut().expect("id first").position = rest.to_string(),
            "moves" => blocks.last_mut().expect("id first").moves = rest.split_whitespace().map(String::from).collect(),
            "perft" => {
                let (d, c) = rest.split_once(' ').unwrap_or_else(|| panic!("line {}: bad perft", n + 1));
                blocks.last_mut().expect("id first").perft.push((d.parse().unwrap(), c.parse().unwrap()));
            }
            other => panic!("line {}: unknown key {other:?}", n + 1),
        }
    }
    blocks
}

#[test]
fn fixture_has_all_blocks() {
    let blocks = read_blocks();
    assert!(blocks.len() >= 40, "only {} blocks read", blocks.len());
    assert!(blocks.iter().all(|b| !b.position.is_empty() && !b.perft.is_empty()));
}

#[test]
fn move_lists_match_vectors() {
    for block in read_blocks() {
        let pos: Position = block.position.parse().unwrap_or_else(|e| panic!("{}: {e}", block.id));
        assert_eq!(pos.to_string(), block.position, "{}: position text round trip", block.id);
        let mut moves: Vec<String> = pos.legal_moves().iter().map(|m| m.to_string()).collect();
        moves.sort();
        assert_eq!(moves, block.moves, "{}: legal moves", block.id);
        for name in &block.moves {
            let mv = pos.parse_move(name).unwrap_or_else(|e| panic!("{}: {e}", block.id));
            assert_eq!(&mv.to_string(), name, "{}: notation round trip", block.id);
        }
    }
}

#[test]
fn perft_counts_match_vectors() {
    for block in read_blocks() {
        let pos: Position = block.position.parse().expect("valid position");
        for &(depth, count) in &block.perft {
            assert_eq!(perft(&pos, depth), count, "{}: perft {depth}", block.id);
        }
    }
}
