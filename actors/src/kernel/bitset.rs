//! A set of small integers as bits with its size kept: a stage attempt's started task indices
//! (dynamic allocation's `stageAttemptToTaskIndices`), a job's finished partitions. One bit
//! per member instead of a hash-set entry or a slot of a wide vector, so a million members
//! fit in 125 KB and a lookup stays in cache.

/// The set; it grows to the largest member inserted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BitSet {
    bits: Vec<u64>,
    len: u32,
}

impl BitSet {
    /// An empty set with room for members below `n`.
    pub fn with_capacity(n: u32) -> Self {
        BitSet {
            bits: vec![0; n.div_ceil(64) as usize],
            len: 0,
        }
    }

    /// Adds `i`; whether it was new.
    #[inline]
    pub fn insert(&mut self, i: u32) -> bool {
        let (w, b) = ((i / 64) as usize, i % 64);
        if self.bits.len() <= w {
            self.bits.resize(w + 1, 0);
        }
        let new = self.bits[w] & (1 << b) == 0;
        if new {
            self.bits[w] |= 1 << b;
            self.len += 1;
        }
        new
    }

    /// Removes `i`; whether it was there.
    pub fn remove(&mut self, i: u32) -> bool {
        let (w, b) = ((i / 64) as usize, i % 64);
        let present = self.bits.get(w).is_some_and(|word| word & (1 << b) != 0);
        if present {
            self.bits[w] &= !(1 << b);
            self.len -= 1;
        }
        present
    }

    #[inline]
    pub fn contains(&self, i: u32) -> bool {
        let (w, b) = ((i / 64) as usize, i % 64);
        self.bits.get(w).is_some_and(|word| word & (1 << b) != 0)
    }

    /// How many members.
    pub fn len(&self) -> u32 {
        self.len
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn behaves_like_a_btree_set() {
        let mut s = BitSet::with_capacity(10);
        let mut b = BTreeSet::new();
        for i in 0..2_000u32 {
            let k = (i * 7919) % 1_500;
            if i % 3 == 2 {
                assert_eq!(s.remove(k), b.remove(&k));
            } else {
                assert_eq!(s.insert(k), b.insert(k));
            }
            for probe in [k, k + 1, k.saturating_sub(1), 5_000] {
                assert_eq!(s.contains(probe), b.contains(&probe));
            }
            assert_eq!(s.len() as usize, b.len());
        }
        // Removing what was never inserted, beyond the words grown so far.
        assert!(!s.remove(1_000_000));
    }
}
