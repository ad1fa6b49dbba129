//! "Did you mean": the candidate nearest to a misspelt name. Bounded, so a
//! file full of typos against a long list of names stays fast: a candidate
//! whose length differs by more than the allowed distance is never compared,
//! and a comparison stops as soon as it cannot come within the limit.

/// The candidate nearest to `want`, if it is near enough to be a typo (at
/// most one edit per three characters). Case does not count.
pub fn closest<'a>(want: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let want: Vec<char> = want.to_lowercase().chars().collect();
    let limit = (want.len() / 3).max(1);
    let mut best: Option<(usize, &'a str)> = None;
    for c in candidates {
        let cand: Vec<char> = c.to_lowercase().chars().collect();
        if cand.len().abs_diff(want.len()) > limit {
            continue;
        }
        let bound = best.map_or(limit, |(d, _)| d.saturating_sub(1)).min(limit);
        if let Some(d) = edit_distance_within(&want, &cand, bound)
            && best.is_none_or(|(bd, _)| d < bd)
        {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

/// The edit distance of `a` and `b`, if it is at most `bound`.
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
}
