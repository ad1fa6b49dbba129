//! The module cache's key.

use super::*;

fn key(profile: Profile, flags: &[&str]) -> Vec<u8> {
    let mut h = Sha256::new();
    crate::toolchains::flags_key(&mut h, profile, flags);
    h.finalize().to_vec()
}

#[test]
fn every_flag_is_part_of_a_modules_cache_key() {
    let flags = toolchain::flags(Profile::Release, toolchain::Collector::Incremental);
    let base = key(Profile::Release, &flags);
    assert_eq!(base, key(Profile::Release, &flags));
    for (i, flag) in flags.iter().enumerate() {
        let mut without = flags.clone();
        without.remove(i);
        assert_ne!(base, key(Profile::Release, &without), "{flag}");
    }
    // Flags are kept apart: `-a -b` is not `-a-b`.
    assert_ne!(
        key(Profile::Debug, &["--use", "X=1"]),
        key(Profile::Debug, &["--useX=1"])
    );
    assert_ne!(key(Profile::Debug, &flags), base);
    // The collector is a flag: a module built for the other is another.
    let minimal = toolchain::flags(Profile::Release, toolchain::Collector::BetweenDeliveries);
    assert_ne!(key(Profile::Release, &minimal), base);
}
