//! Training throughput of the burn trainer on in-memory samples, for the
//! side-by-side comparison with `scripts/train_pytorch.py` (same network,
//! batch, data and threads). Not used by the tests.
//!
//! ```sh
//! # write the samples of a games file (f32 little-endian: 50 features + 1 target per sample)
//! cargo run --release -p alq-train --example throughput -- dump data/selfplay/games.csv /tmp/samples.f32
//! # train 3 epochs on them with 2 threads and report samples per second
//! cargo run --release -p alq-train --example throughput -- bench /tmp/samples.f32 2
//! python3 scripts/train_pytorch.py /tmp/samples.f32 --threads 2
//! ```

use std::path::PathBuf;

// As in the `alq` binary: an allocator that keeps freed memory, so the many
// short-lived tensor buffers do not fault in fresh pages every step.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
use std::time::Instant;

use burn::optim::{AdamWConfig, GradientsParams};
use burn::prelude::*;
use burn::tensor::activation::sigmoid;

use alq_engine::INPUTS;
use alq_train::{for_each_batch, Part, TrainConfig, ValueNet};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some("dump") if args.len() == 4 => dump(&args[2], &args[3]),
        Some("bench") if args.len() >= 3 => {
            let threads = args.get(3).and_then(|t| t.parse().ok()).unwrap_or(2);
            let hidden: Vec<usize> = args
                .get(4)
                .map(|h| h.split(',').filter_map(|w| w.parse().ok()).collect())
                .unwrap_or_else(|| TrainConfig::default().hidden);
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("pool")
                .install(|| bench(&args[2], threads, &hidden))
        }
        _ => {
            eprintln!(
                "usage: throughput dump GAMES.csv OUT.f32 | throughput bench SAMPLES.f32 [THREADS [HIDDEN e.g. 64,16]]"
            );
            std::process::exit(2);
        }
    }
}

fn dump(games: &str, out: &str) {
    let config = TrainConfig { mirror: false, ..TrainConfig::default() };
    let mut bytes = Vec::new();
    let n = for_each_batch::<alq_records::RecordError>(
        &[PathBuf::from(games)],
        Part::Train,
        &config,
        &alq_train::Labels::none(),
        1,
        |b| {
            for (f, t) in b.features.chunks(INPUTS).zip(b.targets(config.result_weight, config.exact_weight)) {
                for v in f.iter().chain(std::iter::once(&t)) {
                    bytes.extend_from_slice(&v.to_le_bytes());
                }
            }
            Ok(())
        },
    )
    .unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    std::fs::write(out, bytes).expect("write samples");
    eprintln!("{n} samples written to {out}");
}

fn bench(path: &str, threads: usize, hidden: &[usize]) {
    let bytes = std::fs::read(path).expect("read samples");
    let floats: Vec<f32> = bytes.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect();
    let n = floats.len() / (INPUTS + 1);
    let (mut xs, mut ys) = (Vec::with_capacity(n * INPUTS), Vec::with_capacity(n));
    for s in floats.chunks_exact(INPUTS + 1) {
        xs.extend_from_slice(&s[..INPUTS]);
        ys.push(s[INPUTS]);
    }
    let batch = 1024;
    let device = Device::flex().autodiff();
    device.seed(1);
    let mut model = ValueNet::new(hidden, &device);
    let mut optim = AdamWConfig::new().with_weight_decay(1e-4).with_epsilon(1e-8).init();
    for epoch in 0..4 {
        let started = Instant::now();
        let mut loss_sum = 0.0;
        for start in (0..n).step_by(batch) {
            let end = (start + batch).min(n);
            let x = Tensor::<2>::from_data(
                TensorData::new(xs[start * INPUTS..end * INPUTS].to_vec(), [end - start, INPUTS]),
                &device,
            );
            let y = Tensor::<2>::from_data(TensorData::new(ys[start..end].to_vec(), [end - start, 1]), &device);
            let loss = (sigmoid(model.forward(x)) - y).square().mean();
            let grads = GradientsParams::from_grads(loss.backward(), &model);
            loss_sum += loss.into_scalar::<f32>() as f64 * (end - start) as f64;
            model = optim.step(0.002, model, grads);
        }
        let secs = started.elapsed().as_secs_f64();
        // The first epoch warms up; report the others.
        println!(
            "burn epoch {epoch}: {n} samples in {secs:.2} s = {:.0} samples/s, loss {:.5} ({threads} threads){}",
            n as f64 / secs,
            loss_sum / n as f64,
            if epoch == 0 { " (warm-up)" } else { "" }
        );
    }
}
