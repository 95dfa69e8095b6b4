//! The fixed action index (moves as integer ids, as reinforcement-learning
//! libraries want them) and the batch functions that work on many packed
//! position keys at once, without the GIL.

use numpy::{IntoPyArray, PyArray1, PyArray2, PyArrayMethods, PyUntypedArrayMethods};
use pyo3::prelude::*;

use alq_engine::{ActionIndex, RuleSet};

use crate::board::{action_move, point_names, resolve_move, Move, MoveArg, Position};
use crate::convert::{Integers, Wrap};
use crate::{ActionError, MoveError, PositionError};

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(num_actions, m)?)?;
    m.add_function(wrap_pyfunction!(action_to_move, m)?)?;
    m.add_function(wrap_pyfunction!(move_to_action, m)?)?;
    m.add_function(wrap_pyfunction!(action_triple, m)?)?;
    m.add_function(wrap_pyfunction!(legal_actions_batch, m)?)?;
    m.add_function(wrap_pyfunction!(play_batch, m)?)?;
    m.add_function(wrap_pyfunction!(action_masks_batch, m)?)?;
    m.add_function(wrap_pyfunction!(keys_of, m)?)?;
    Ok(())
}

/// The number of actions in the fixed action index of `rules`.
#[pyfunction]
#[pyo3(signature = (rules = Wrap::BRAINKING), text_signature = "(rules=\"brainking\")")]
fn num_actions(rules: Wrap<RuleSet>) -> usize {
    ActionIndex::of(rules.0).len()
}

/// The legal move of `position` that `action` stands for.
#[pyfunction]
fn action_to_move(position: PyRef<'_, Position>, action: i64) -> PyResult<Move> {
    Ok(Move::new(action_move(&position.pos, position.rules, action)?, position.rules))
}

/// The action id of a move (a `Move`, or move text read in `position`).
#[pyfunction]
#[pyo3(signature = (mv, position = None))]
fn move_to_action(mv: MoveArg<'_>, position: Option<PyRef<'_, Position>>) -> PyResult<u32> {
    let (m, rules) = match (&mv, &position) {
        (MoveArg::Obj(m), None) => (m.mv, m.rules),
        (_, Some(p)) => (resolve_move(&p.pos, p.rules, &mv)?, p.rules),
        (_, None) => return Err(MoveError::new_err("move text or an action needs the position it is played in")),
    };
    Ok(ActionIndex::of(rules).action(m).expect("every legal move is indexed"))
}

/// The (origin, end, captured points) an action id stands for.
#[pyfunction]
#[pyo3(signature = (action, rules = Wrap::BRAINKING), text_signature = "(action, rules=\"brainking\")")]
fn action_triple(action: i64, rules: Wrap<RuleSet>) -> PyResult<(String, String, Vec<String>)> {
    let index = ActionIndex::of(rules.0);
    let triple = u32::try_from(action).ok().and_then(|a| index.triple(a));
    let (from, to, captured) = triple
        .ok_or_else(|| ActionError::new_err(format!("action {action} is out of range (0 .. {})", index.len())))?;
    Ok((from.to_string(), to.to_string(), point_names(captured)))
}

fn keys_from(keys: &[u64]) -> PyResult<Vec<alq_engine::Position>> {
    keys.iter()
        .enumerate()
        .map(|(i, &k)| alq_engine::Position::from_key(k).map_err(|e| PositionError::new_err(format!("keys[{i}]: {e}"))))
        .collect()
}

type Csr<'py> = (Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<i32>>);

/// The legal actions of many positions at once, given as packed keys
/// (uint64, see `Position.key`; any integer array or list is converted): returns `(offsets, actions)`, where the
/// actions of position i are `actions[offsets[i]:offsets[i + 1]]`
/// (ascending within each position, as `Position.legal_actions()`). Runs
/// without the GIL.
#[pyfunction]
#[pyo3(signature = (keys, rules = Wrap::BRAINKING), text_signature = "(keys, rules=\"brainking\")")]
fn legal_actions_batch<'py>(py: Python<'py>, keys: Integers<'py, u64>, rules: Wrap<RuleSet>) -> PyResult<Csr<'py>> {
    let Wrap(rules) = rules;
    let positions = keys_from(&keys.0.as_array().iter().copied().collect::<Vec<u64>>())?;
    let (offsets, actions) = py.detach(move || {
        let index = ActionIndex::of(rules);
        let mut offsets = Vec::with_capacity(positions.len() + 1);
        let mut actions = Vec::with_capacity(positions.len() * 8);
        offsets.push(0i64);
        for pos in &positions {
            let first = actions.len();
            for &m in pos.legal_moves_in(rules).iter() {
                actions.push(index.action(m).expect("every legal move is indexed") as i32);
            }
            actions[first..].sort_unstable();
            offsets.push(actions.len() as i64);
        }
        (offsets, actions)
    });
    Ok((offsets.into_pyarray(py), actions.into_pyarray(py)))
}

/// The action masks of many positions at once, given as packed keys: row i
/// is the mask of `keys[i]`. Unpacked (the default) a bool array of shape
/// (n, num_actions); with `packed=True` a uint8 array of shape (n,
/// ceil(num_actions / 8)) in numpy's `packbits` order (action a is bit
/// `7 - a % 8` of byte `a // 8`), so `np.unpackbits(m, axis=1,
/// count=num_actions)` gives the unpacked mask. With `out` (a C-contiguous
/// array of that dtype and shape, e.g. reused between batches) the masks
/// are written into it and it is returned; nothing is allocated. Runs
/// without the GIL, on all cores.
#[pyfunction]
#[pyo3(
    signature = (keys, out = None, *, packed = false, rules = Wrap::BRAINKING),
    text_signature = "(keys, out=None, *, packed=False, rules=\"brainking\")"
)]
fn action_masks_batch<'py>(
    py: Python<'py>,
    keys: Integers<'py, u64>,
    out: Option<Bound<'py, PyAny>>,
    packed: bool,
    rules: Wrap<RuleSet>,
) -> PyResult<Bound<'py, PyAny>> {
    let Wrap(rules) = rules;
    let positions = keys_from(&keys.0.as_array().iter().copied().collect::<Vec<u64>>())?;
    let actions = ActionIndex::of(rules).len();
    let width = if packed { actions.div_ceil(8) } else { actions };
    if packed {
        let array = mask_array::<u8>(py, out, positions.len(), width, "uint8")?;
        fill_masks(py, &array, &positions, width, rules, |row, a| row[a / 8] |= 0x80 >> (a % 8))?;
        Ok(array.into_any())
    } else {
        let array = mask_array::<bool>(py, out, positions.len(), width, "bool")?;
        fill_masks(py, &array, &positions, width, rules, |row, a| row[a] = true)?;
        Ok(array.into_any())
    }
}

/// The array to write masks into: `out` when it fits, else a new one.
fn mask_array<'py, T: numpy::Element>(
    py: Python<'py>,
    out: Option<Bound<'py, PyAny>>,
    rows: usize,
    width: usize,
    dtype: &str,
) -> PyResult<Bound<'py, PyArray2<T>>> {
    let Some(out) = out else { return Ok(PyArray2::<T>::zeros(py, [rows, width], false)) };
    let wrong = || {
        crate::ArgumentError::new_err(format!(
            "out must be a C-contiguous {dtype} array of shape ({rows}, {width}), not {}",
            array_description(&out)
        ))
    };
    let array = out.cast::<PyArray2<T>>().map_err(|_| wrong())?.clone();
    if array.shape() != [rows, width] || !array.is_c_contiguous() {
        return Err(wrong());
    }
    Ok(array)
}

/// `bool (10, 49100)`, or the object's type when it is no array.
fn array_description(obj: &Bound<'_, PyAny>) -> String {
    let dtype = obj.getattr("dtype").and_then(|d| d.str()).map(|d| d.to_string());
    let shape = obj.getattr("shape").and_then(|s| s.str()).map(|s| s.to_string());
    match (dtype, shape) {
        (Ok(d), Ok(s)) => format!("{d} {s}"),
        _ => obj.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".to_string()),
    }
}

/// Writes the mask of `positions[i]` into row i of `array` (cleared first),
/// rows in parallel without the GIL.
fn fill_masks<T: numpy::Element + Default + Copy + Send>(
    py: Python<'_>,
    array: &Bound<'_, PyArray2<T>>,
    positions: &[alq_engine::Position],
    width: usize,
    rules: RuleSet,
    set: impl Fn(&mut [T], usize) + Sync,
) -> PyResult<()> {
    let mut view = array.try_readwrite().map_err(|e| crate::ArgumentError::new_err(format!("out: {e}")))?;
    let cells = view.as_slice_mut().map_err(|e| crate::ArgumentError::new_err(format!("out: {e}")))?;
    if positions.is_empty() || width == 0 {
        return Ok(());
    }
    py.detach(|| {
        use rayon::prelude::*;
        let index = ActionIndex::of(rules);
        cells.par_chunks_mut(width).zip(positions.par_iter()).with_min_len(64).for_each(|(row, pos)| {
            row.fill(T::default());
            for &m in pos.legal_moves_in(rules).iter() {
                set(row, index.action(m).expect("every legal move is indexed") as usize);
            }
        });
    });
    Ok(())
}

/// Plays `actions[i]` in the position `keys[i]` for every i and returns the
/// keys of the positions reached (uint64). An action that is not legal in its
/// position raises `ActionError` naming the index. Runs without the GIL.
#[pyfunction]
#[pyo3(signature = (keys, actions, rules = Wrap::BRAINKING), text_signature = "(keys, actions, rules=\"brainking\")")]
fn play_batch<'py>(
    py: Python<'py>,
    keys: Integers<'py, u64>,
    actions: Integers<'py, i32>,
    rules: Wrap<RuleSet>,
) -> PyResult<Bound<'py, PyArray1<u64>>> {
    let Wrap(rules) = rules;
    let positions = keys_from(&keys.0.as_array().iter().copied().collect::<Vec<u64>>())?;
    let actions: Vec<i32> = actions.0.as_array().iter().copied().collect();
    if actions.len() != positions.len() {
        return Err(ActionError::new_err(format!(
            "{} keys but {} actions: give one action per position",
            positions.len(),
            actions.len()
        )));
    }
    let out = py.detach(move || -> Result<Vec<u64>, String> {
        let index = ActionIndex::of(rules);
        let mut out = Vec::with_capacity(positions.len());
        for (i, (pos, &a)) in positions.iter().zip(&actions).enumerate() {
            let Some(mv) = u32::try_from(a).ok().and_then(|a| index.to_move(pos, a)) else {
                return Err(format!("actions[{i}] = {a} is not legal in {pos}"));
            };
            out.push(pos.play(mv).key());
        }
        Ok(out)
    });
    Ok(out.map_err(ActionError::new_err)?.into_pyarray(py))
}

/// The packed keys (uint64) of a sequence of positions.
#[pyfunction]
fn keys_of<'py>(py: Python<'py>, positions: Vec<PyRef<'py, Position>>) -> Bound<'py, PyArray1<u64>> {
    positions.iter().map(|p| p.pos.key()).collect::<Vec<_>>().into_pyarray(py)
}
