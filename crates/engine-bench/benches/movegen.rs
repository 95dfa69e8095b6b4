//! Move generation and perft benchmarks.

use alq_engine::{perft, MoveList, Position, BRAINKING_RULES};
use criterion::{criterion_group, criterion_main, Criterion};

const POSITIONS: [&str; 3] =
    ["BBBBB/BBBBB/BB.WW/WWWWW/WWWWW w", "BBBBB/BB.BB/W..WW/W..WW/WWBWW b", "BB.../BBB.B/B.B../WWW.W/W.W.W b"];

fn bench(c: &mut Criterion) {
    let positions: Vec<Position> = POSITIONS.iter().map(|t| t.parse().expect("valid position")).collect();
    c.bench_function("generate/3 positions", |b| {
        let mut list = MoveList::new();
        b.iter(|| {
            let mut n = 0;
            for p in &positions {
                list.clear();
                p.generate(&BRAINKING_RULES, &mut list);
                n += list.len();
            }
            n
        })
    });
    let start = Position::start();
    c.bench_function("perft/start depth 10", |b| b.iter(|| perft(&start, 10)));
}

criterion_group!(benches, bench);
criterion_main!(benches);
