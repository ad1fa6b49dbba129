//! Where every generated value comes from: a sequence of choices, each a
//! number below a bound, drawn from a seeded generator and recorded. A
//! failing case is its recorded sequence; replaying a sequence gives the
//! same case, and a shorter or smaller sequence a simpler one (the
//! generators are written so: a choice of 0 is the simplest option, and
//! fewer choices make smaller values). Shrinking edits the sequence, not
//! the values, so every shrunk case is one the generators could make (as
//! Hypothesis does).

/// A seeded generator (SplitMix64: small, fast, the same everywhere).
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// The seed of case `n` of a run seeded `seed`.
pub fn case_seed(seed: u64, n: u64) -> u64 {
    Rng::new(seed ^ n.wrapping_mul(0xa076_1d64_78bd_642f)).next_u64()
}

/// Choices drawn: from the generator, or from a given sequence (a case
/// replayed or being shrunk), past whose end every choice is 0 (so a
/// shorter sequence is a simpler case); every one recorded.
pub struct Choices {
    given: Vec<u64>,
    at: usize,
    rng: Rng,
    pub record: Vec<u64>,
    /// Replaying a sequence: past its end, zeros.
    replay: bool,
}

/// Past this many choices a case is as big as it gets: every further
/// choice is 0 (the simplest), so a generator cannot run on forever.
const MOST: usize = 20_000;

impl Choices {
    pub fn new(seed: u64) -> Choices {
        Choices {
            given: Vec::new(),
            at: 0,
            rng: Rng::new(seed),
            record: Vec::new(),
            replay: false,
        }
    }

    /// `given`, then zeros.
    pub fn replaying(given: Vec<u64>) -> Choices {
        Choices {
            given,
            at: 0,
            rng: Rng::new(0),
            record: Vec::new(),
            replay: true,
        }
    }

    /// A number below `bound` (0 when `bound` is 0 or 1).
    pub fn below(&mut self, bound: u64) -> u64 {
        let v = if self.record.len() >= MOST || bound <= 1 {
            0
        } else if let Some(&g) = self.given.get(self.at) {
            g.min(bound - 1)
        } else if self.replay {
            0
        } else {
            self.rng.next_u64() % bound
        };
        self.at += 1;
        self.record.push(v);
        v
    }

    /// `true` about `percent` times in a hundred; `false` is the simpler.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) >= 100 - percent.min(100)
    }

    /// One of `items`, the first the simplest.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
}

/// Smaller versions of a failing sequence `s`, simplest first: the tail
/// cut, runs of choices deleted (a whole request's, wherever it starts),
/// then values made 0, halved, decremented.
pub fn smaller(s: &[u64]) -> Vec<Vec<u64>> {
    let mut out = Vec::new();
    for keep in [s.len() / 2, s.len() * 3 / 4] {
        if keep < s.len() {
            out.push(s[..keep].to_vec());
        }
    }
    for size in (1..=16).rev() {
        if size > s.len() {
            continue;
        }
        for at in 0..=s.len() - size {
            let mut t = s.to_vec();
            t.drain(at..at + size);
            out.push(t);
        }
    }
    for i in 0..s.len() {
        if s[i] == 0 {
            continue;
        }
        for v in [0, s[i] / 2, s[i] - 1] {
            if v < s[i] {
                let mut t = s.to_vec();
                t[i] = v;
                out.push(t);
            }
        }
    }
    out.dedup();
    out
}

/// The smallest sequence like `failing` for which `fails` holds, trying
/// at most `budget` candidates.
pub fn shrink(failing: Vec<u64>, budget: usize, mut fails: impl FnMut(&[u64]) -> bool) -> Vec<u64> {
    let mut best = failing;
    let mut tried = 0;
    'improve: loop {
        for candidate in smaller(&best) {
            if tried >= budget {
                break 'improve;
            }
            tried += 1;
            if fails(&candidate) {
                best = candidate;
                continue 'improve;
            }
        }
        break;
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sequence_replays_to_the_same_choices() {
        let mut a = Choices::new(7);
        let drawn: Vec<u64> = (0..20).map(|_| a.below(1000)).collect();
        let mut b = Choices::replaying(a.record.clone());
        let again: Vec<u64> = (0..20).map(|_| b.below(1000)).collect();
        assert_eq!(drawn, again);
    }

    #[test]
    fn shrinking_finds_the_smallest_failing_sequence() {
        // Fails when some choice is at least 10: the smallest is [10].
        let failing = vec![3, 99, 7, 42, 0, 15];
        let best = shrink(failing, 10_000, |s| s.iter().any(|&v| v >= 10));
        assert_eq!(best, vec![10]);
    }

    #[test]
    fn the_seeds_of_cases_differ() {
        let seeds: std::collections::HashSet<u64> = (0..1000).map(|n| case_seed(1, n)).collect();
        assert_eq!(seeds.len(), 1000);
    }
}
