//! Reverse edges of a graph, for the retrograde analyses of both searches.

/// The reverse edges of a graph (compressed rows).
pub struct Predecessors {
    start: Vec<u32>,
    list: Vec<u32>,
}

impl Predecessors {
    /// The reverse edges of a graph of `n` nodes given by its successor lists.
    pub fn of_edges<'g>(n: usize, successors: impl Fn(u32) -> &'g [u32]) -> Predecessors {
        let mut start = vec![0u32; n + 1];
        for node in 0..n as u32 {
            for &s in successors(node) {
                start[s as usize + 1] += 1;
            }
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut list = vec![0u32; start[n] as usize];
        for node in 0..n as u32 {
            for &s in successors(node) {
                list[fill[s as usize] as usize] = node;
                fill[s as usize] += 1;
            }
        }
        Predecessors { start, list }
    }

    /// Rows from their starts (`n + 1` entries) and the concatenated lists.
    pub fn from_parts(start: Vec<u32>, list: Vec<u32>) -> Predecessors {
        Predecessors { start, list }
    }

    pub fn of(&self, node: u32) -> &[u32] {
        &self.list[self.start[node as usize] as usize..self.start[node as usize + 1] as usize]
    }
}
