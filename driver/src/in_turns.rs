//! Work on a few threads, results in order.

/// `f` of each of `items`, in order, computed on up to `at_once` threads
/// that each take the next item not yet taken.
pub fn in_turns<T: Sync, R: Send>(
    items: &[T],
    at_once: usize,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let threads = at_once.min(items.len());
    if threads <= 1 {
        return items.iter().map(f).collect();
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut done: Vec<(usize, R)> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(item) = items.get(i) else { break };
                        mine.push((i, f(item)));
                    }
                    mine
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    done.sort_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, r)| r).collect()
}

#[cfg(test)]
mod tests {
    use super::in_turns;

    #[test]
    fn results_come_in_order_on_any_number_of_threads() {
        let items: Vec<u64> = (0..23).collect();
        let want: Vec<u64> = items.iter().map(|i| i * i).collect();
        for at_once in [0, 1, 2, 5, 64] {
            // Uneven work, so threads finish out of turn.
            let got = in_turns(&items, at_once, |&i| {
                std::thread::sleep(std::time::Duration::from_millis((i * 7) % 5));
                i * i
            });
            assert_eq!(got, want, "{at_once} at once");
        }
        assert!(in_turns(&[] as &[u8], 4, |_| 0).is_empty());
    }

    #[test]
    fn a_panic_in_the_work_is_the_caller_s() {
        let caught = std::panic::catch_unwind(|| {
            in_turns(&[1, 2, 3], 2, |&i| if i == 2 { panic!("two") } else { i })
        });
        assert!(caught.is_err());
    }
}
