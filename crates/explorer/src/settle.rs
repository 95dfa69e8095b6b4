//! Exact values from the oracle for the explorer: answered at once where
//! they are known (tables, shipped proofs, the store, earlier searches),
//! else settled by one background thread, one position at a time within
//! the oracle's budget, newest request first. A request waits at most its
//! own budget for them; what is still open is marked pending and the page
//! asks again. Answers, unknown ones included, are cached for the life of
//! the server.

use std::collections::HashMap;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use alq_engine::Position;
use alq_oracle::{Oracle, Source, Value};

/// Positions waiting at most; older ones are dropped (asked again when a
/// page shows them again).
const MAX_QUEUE: usize = 256;

/// What the explorer can say of a position's exact value now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lookup {
    /// Settled (a value, a bound, or `unknown` when the budget ran out).
    Answer(Value, Source),
    /// Asked and not answered yet.
    Pending,
}

/// The cache and the queue of the background thread.
#[derive(Default)]
struct State {
    answers: HashMap<u64, (Value, Source)>,
    /// Positions waiting, the newest last (taken first).
    queue: Vec<Position>,
}

/// The oracle behind the explorer, with its cache and worker.
pub struct Settler {
    oracle: Arc<Oracle<'static>>,
    /// How long a request waits for its positions.
    wait: Duration,
    state: Mutex<State>,
    /// Signalled when the queue grows (the worker waits on it) and when an
    /// answer arrives (requests wait on it).
    changed: Condvar,
}

impl Settler {
    /// A settler over `oracle` whose requests wait at most `wait`, with
    /// its background thread started.
    pub fn start(oracle: Arc<Oracle<'static>>, wait: Duration) -> Arc<Settler> {
        let settler = Arc::new(Settler { oracle, wait, state: Mutex::new(State::default()), changed: Condvar::new() });
        let worker = Arc::clone(&settler);
        std::thread::spawn(move || worker.work());
        settler
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The values of `positions` (in their order): what is known now,
    /// else what the worker settles within the request's wait.
    pub fn values(&self, positions: &[Position]) -> Vec<Lookup> {
        let mut out: Vec<Option<(Value, Source)>> = positions.iter().map(|p| self.now(p)).collect();
        let open: Vec<usize> = (0..positions.len()).filter(|&i| out[i].is_none()).collect();
        if open.is_empty() {
            return out.into_iter().map(lookup).collect();
        }
        let deadline = Instant::now() + self.wait;
        let mut state = self.lock();
        // The first of the request's positions is taken first; the oldest
        // waiting positions give way when the queue is full.
        for &i in open.iter().rev() {
            let key = positions[i].key();
            state.queue.retain(|p| p.key() != key);
            state.queue.push(positions[i]);
        }
        let excess = state.queue.len().saturating_sub(MAX_QUEUE);
        state.queue.drain(..excess);
        self.changed.notify_all();
        loop {
            for &i in &open {
                if out[i].is_none() {
                    out[i] = state.answers.get(&positions[i].key()).copied();
                }
            }
            let now = Instant::now();
            if open.iter().all(|&i| out[i].is_some()) || now >= deadline {
                break;
            }
            state = self.changed.wait_timeout(state, deadline - now).unwrap_or_else(|e| e.into_inner()).0;
        }
        out.into_iter().map(lookup).collect()
    }

    /// What is known of `pos` without waiting for a search.
    fn now(&self, pos: &Position) -> Option<(Value, Source)> {
        if let Some(&answer) = self.lock().answers.get(&pos.key()) {
            return Some(answer);
        }
        match self.oracle.known_now(pos) {
            Ok(Some(answer)) => answer,
            // The store is held by a search: the worker answers later.
            Ok(None) => None,
            Err(e) => {
                eprintln!("explorer: the oracle failed on {pos}: {e}");
                Some((Value::Unknown, Source::None))
            }
        }
    }

    /// The background thread: settles queued positions, newest first.
    fn work(&self) {
        loop {
            let pos = {
                let mut state = self.lock();
                loop {
                    if let Some(p) = state.queue.pop() {
                        if !state.answers.contains_key(&p.key()) {
                            break p;
                        }
                        continue;
                    }
                    state = self.changed.wait(state).unwrap_or_else(|e| e.into_inner());
                }
            };
            let answer = match self.oracle.value(&pos) {
                Ok(a) => (a.value, a.source),
                Err(e) => {
                    eprintln!("explorer: the oracle failed on {pos}: {e}");
                    (Value::Unknown, Source::None)
                }
            };
            self.lock().answers.insert(pos.key(), answer);
            self.changed.notify_all();
        }
    }
}

fn lookup(answer: Option<(Value, Source)>) -> Lookup {
    match answer {
        Some((v, s)) => Lookup::Answer(v, s),
        None => Lookup::Pending,
    }
}
