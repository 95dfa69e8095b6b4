//! Search benchmarks: fixed-depth searches with the handcrafted evaluator.

use std::sync::Arc;

use alq_engine::{Evaluator, Hce, Limits, Network, NnEvaluator, Position, SearchConfig, Searcher};

const NETWORK: &[u8] = include_bytes!("../../../data/networks/default.alqnet");
use criterion::{criterion_group, criterion_main, Criterion};

const POSITIONS: [(&str, &str, u32); 3] = [
    ("start", "BBBBB/BBBBB/BB.WW/WWWWW/WWWWW w", 14),
    ("middlegame-1", "BBBBB/BB.BB/W..WW/W..WW/WWBWW b", 12),
    ("middlegame-2", "BB.../BBB.B/B.B../WWW.W/W.W.W b", 12),
];

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("search");
    group.sample_size(10);
    for (name, text, depth) in POSITIONS {
        let pos: Position = text.parse().expect("valid position");
        group.bench_function(format!("{name}/depth {depth}"), |b| {
            b.iter(|| {
                let mut s = Searcher::new(Hce::default(), SearchConfig { hash_mb: 16 });
                s.search_position(&pos, Limits::depth(depth)).nodes
            })
        });
    }
    let net = Arc::new(Network::from_bytes(NETWORK).expect("the shipped network"));
    for (name, text, depth) in POSITIONS {
        let pos: Position = text.parse().expect("valid position");
        group.bench_function(format!("nn {name}/depth {depth}"), |b| {
            b.iter(|| {
                let mut s = Searcher::new(NnEvaluator::new(net.clone()), SearchConfig { hash_mb: 16 });
                s.search_position(&pos, Limits::depth(depth)).nodes
            })
        });
    }
    group.finish();
    let pos: Position = POSITIONS[1].1.parse().expect("valid position");
    let mut hce = Hce::default();
    c.bench_function("hce/evaluate", |b| b.iter(|| hce.evaluate(std::hint::black_box(&pos))));
    let mut nn = NnEvaluator::new(net);
    nn.reset(&pos);
    c.bench_function("nn/evaluate", |b| b.iter(|| nn.evaluate(std::hint::black_box(&pos))));
}

criterion_group!(benches, bench);
criterion_main!(benches);
