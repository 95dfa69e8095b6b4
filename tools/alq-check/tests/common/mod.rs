//! Shared by the tests: positions from their text form.

use alq_check::Pos;

/// Reads the text form of [`Pos::text`], e.g. `BBBBB/BBBBB/BB.WW/WWWWW/WWWWW w`.
pub fn parse(text: &str) -> Result<Pos, String> {
    let mut pos = Pos { white: 0, black: 0, black_to_move: text.ends_with(" b") };
    let points = (0..5).rev().flat_map(|rank| (0..5).map(move |file| 5 * rank + file));
    for (p, c) in points.zip(text.chars().filter(|&c| c != '/')) {
        match c {
            'W' => pos.white |= 1 << p,
            'B' => pos.black |= 1 << p,
            _ => {}
        }
    }
    // Anything else than the text of the position read is refused.
    if pos.text() == text {
        Ok(pos)
    } else {
        Err(format!("bad position text {text:?}"))
    }
}
