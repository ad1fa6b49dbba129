//! "Did you mean": the candidate nearest to a misspelt name. Bounded, so a
//! file full of typos against a long list of names stays fast: a candidate
//! whose length differs by more than the allowed distance is never compared,
//! a comparison is a few word operations per character (bit-parallel), and
//! it stops as soon as it cannot come within the limit.

/// Names to suggest from, shared: one list per scope serves every unknown
/// name in it, however many there are.
pub type Candidates = std::sync::Arc<[String]>;

/// The candidate nearest to `want`, if it is near enough to be a typo (at
/// most one edit per three characters). Case does not count.
pub fn closest<'a>(want: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let mut lowered = Vec::new();
    lower_into(want, &mut lowered);
    let want = lowered;
    let limit = (want.len() / 3).max(1);
    let pattern = Pattern::new(&want);
    let mut cand: Vec<char> = Vec::new();
    let mut best: Option<(usize, &'a str)> = None;
    for c in candidates {
        lower_into(c, &mut cand);
        if cand.len().abs_diff(want.len()) > limit {
            continue;
        }
        let bound = best.map_or(limit, |(d, _)| d.saturating_sub(1)).min(limit);
        let d = match &pattern {
            Some(p) => p.distance_within(&cand, bound),
            None => edit_distance_within(&want, &cand, bound),
        };
        if let Some(d) = d
            && best.is_none_or(|(bd, _)| d < bd)
        {
            best = Some((d, c));
            if d == 0 {
                break;
            }
        }
    }
    best.map(|(_, c)| c)
}

/// `name`'s characters, lower case, into `out` (cleared first); ASCII
/// names (nearly all) without Unicode's case tables.
fn lower_into(name: &str, out: &mut Vec<char>) {
    out.clear();
    if name.is_ascii() {
        out.extend(name.bytes().map(|b| char::from(b.to_ascii_lowercase())));
    } else {
        out.extend(name.chars().flat_map(char::to_lowercase));
    }
}

/// A name of at most 64 characters, ready for the bit-parallel edit
/// distance (Myers 1999, in Hyyrö's form): one pass over a candidate's
/// characters with a few word operations each, instead of a row of the
/// table per character. A file of thousands of typos against thousands of
/// names is then thousands of times cheaper than the table.
struct Pattern {
    len: usize,
    /// For each character, the positions where the name has it.
    ascii: [u64; 128],
    other: Vec<(char, u64)>,
}

impl Pattern {
    fn new(want: &[char]) -> Option<Pattern> {
        if want.is_empty() || want.len() > 64 {
            return None;
        }
        let mut p = Pattern {
            len: want.len(),
            ascii: [0; 128],
            other: Vec::new(),
        };
        for (i, &c) in want.iter().enumerate() {
            let bit = 1u64 << i;
            match p.ascii.get_mut(c as usize) {
                Some(m) => *m |= bit,
                None => match p.other.iter_mut().find(|(o, _)| *o == c) {
                    Some((_, m)) => *m |= bit,
                    None => p.other.push((c, bit)),
                },
            }
        }
        Some(p)
    }

    fn positions(&self, c: char) -> u64 {
        match self.ascii.get(c as usize) {
            Some(m) => *m,
            None => self
                .other
                .iter()
                .find(|(o, _)| *o == c)
                .map_or(0, |(_, m)| *m),
        }
    }

    /// The edit distance to `text`, if it is at most `bound`.
    fn distance_within(&self, text: &[char], bound: usize) -> Option<usize> {
        let last = 1u64 << (self.len - 1);
        let (mut pv, mut mv) = (u64::MAX, 0u64);
        let mut score = self.len;
        for (j, &c) in text.iter().enumerate() {
            let eq = self.positions(c);
            let xv = eq | mv;
            let xh = ((eq & pv).wrapping_add(pv) ^ pv) | eq;
            let mut ph = mv | !(xh | pv);
            let mut mh = pv & xh;
            if ph & last != 0 {
                score += 1;
            } else if mh & last != 0 {
                score -= 1;
            }
            // The top row of the table is 0, 1, 2, ...: a +1 comes in.
            ph = (ph << 1) | 1;
            mh <<= 1;
            pv = mh | !(xv | ph);
            mv = ph & xv;
            // Each remaining character lowers the score by one at most.
            let left = text.len() - j - 1;
            if score > bound + left {
                return None;
            }
        }
        (score <= bound).then_some(score)
    }
}

/// The edit distance of `a` and `b`, if it is at most `bound`: the table,
/// for names too long for one machine word.
fn edit_distance_within(a: &[char], b: &[char], bound: usize) -> Option<usize> {
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        let mut row_min = cur[0];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
            row_min = row_min.min(cur[j + 1]);
        }
        if row_min > bound {
            return None;
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    (prev[b.len()] <= bound).then_some(prev[b.len()])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn near_names_are_suggested_and_far_ones_not() {
        assert_eq!(closest("Greter", &["Greeter", "Shouter"]), Some("Greeter"));
        assert_eq!(closest("greeter", &["Greeter"]), Some("Greeter"));
        assert_eq!(closest("xyz", &["Greeter"]), None);
        assert_eq!(closest("ab", &["abc", "ab"]), Some("ab"));
        // The nearest wins, whatever the order.
        assert_eq!(closest("count", &["counts", "count_"]), Some("counts"));
        assert_eq!(closest("countr", &["county", "counter"]), Some("county"));
    }

    #[test]
    fn many_candidates_stay_cheap() {
        let names: Vec<String> = (0..20_000).map(|i| format!("name{i}")).collect();
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        assert_eq!(closest("name19999x", &refs), Some("name19999"));
    }

    /// The bit-parallel distance agrees with the table on random names
    /// (small alphabets, so that near and far both come up), every bound.
    #[test]
    fn the_fast_distance_agrees_with_the_table() {
        let mut rng = test_support::Rng::new(7);
        let alphabet: Vec<char> = "abcé_".chars().collect();
        for _ in 0..20_000 {
            let mut word = |max: usize| -> Vec<char> {
                (0..rng.below(max) + 1)
                    .map(|_| alphabet[rng.below(alphabet.len())])
                    .collect()
            };
            let a = word(12);
            let b = word(14);
            let p = Pattern::new(&a).unwrap();
            for bound in 0..6 {
                assert_eq!(
                    p.distance_within(&b, bound),
                    edit_distance_within(&a, &b, bound),
                    "{a:?} {b:?} {bound}"
                );
            }
        }
        let long: Vec<char> = "x".repeat(70).chars().collect();
        assert!(Pattern::new(&long).is_none(), "the table takes long names");
        assert_eq!(
            closest(&"x".repeat(70), &[&"x".repeat(69)]),
            Some("x".repeat(69).as_str())
        );
    }
}
