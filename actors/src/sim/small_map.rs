//! A map for the many actors that hold a handful of entries (an executor's pending asks, a
//! NodeManager's containers): a short unsorted list while small, which costs tens of bytes
//! where a `BTreeMap`'s first node costs hundreds, and a `BTreeMap` once it grows, so a busy
//! actor (a driver waiting on a loss reason for every executor) never scans a long list.
//! Only lookups by key: it is never iterated, so its order cannot matter.

use std::collections::BTreeMap;

/// Up to this many entries the map is a list.
const SMALL: usize = 16;

pub enum SmallMap<K, V> {
    Small(Vec<(K, V)>),
    Large(BTreeMap<K, V>),
}

impl<K, V> Default for SmallMap<K, V> {
    fn default() -> Self {
        SmallMap::Small(Vec::new())
    }
}

impl<K: Ord + Copy, V> SmallMap<K, V> {
    pub fn len(&self) -> usize {
        match self {
            SmallMap::Small(v) => v.len(),
            SmallMap::Large(m) => m.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn get(&self, key: &K) -> Option<&V> {
        match self {
            SmallMap::Small(v) => v.iter().find(|(k, _)| k == key).map(|(_, x)| x),
            SmallMap::Large(m) => m.get(key),
        }
    }

    pub fn get_mut(&mut self, key: &K) -> Option<&mut V> {
        match self {
            SmallMap::Small(v) => v.iter_mut().find(|(k, _)| k == key).map(|(_, x)| x),
            SmallMap::Large(m) => m.get_mut(key),
        }
    }

    /// Inserts or replaces (as `BTreeMap::insert`).
    pub fn insert(&mut self, key: K, value: V) {
        match self {
            SmallMap::Small(v) => {
                if let Some(slot) = v.iter_mut().find(|(k, _)| *k == key) {
                    slot.1 = value;
                } else if v.len() < SMALL {
                    v.push((key, value));
                } else {
                    let mut m: BTreeMap<K, V> = std::mem::take(v).into_iter().collect();
                    m.insert(key, value);
                    *self = SmallMap::Large(m);
                }
            }
            SmallMap::Large(m) => {
                m.insert(key, value);
            }
        }
    }

    pub fn remove(&mut self, key: &K) -> Option<V> {
        match self {
            SmallMap::Small(v) => {
                let i = v.iter().position(|(k, _)| k == key)?;
                let out = v.swap_remove(i).1;
                if v.is_empty() {
                    // An actor that waits on nothing holds no buffer (a started executor's
                    // answered asks would otherwise keep 128 bytes each).
                    *v = Vec::new();
                }
                Some(out)
            }
            SmallMap::Large(m) => m.remove(key),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn behaves_like_a_btree_map_small_and_large() {
        let mut s: SmallMap<u64, u64> = SmallMap::default();
        let mut b = BTreeMap::new();
        for i in 0..200u64 {
            let k = (i * 37) % 51;
            match i % 3 {
                0 | 1 => {
                    s.insert(k, i);
                    b.insert(k, i);
                }
                _ => assert_eq!(s.remove(&k), b.remove(&k)),
            }
            assert_eq!(s.len(), b.len());
            assert_eq!(s.get(&k), b.get(&k));
        }
        assert!(matches!(s, SmallMap::Large(_)));
    }

    #[test]
    fn an_emptied_small_map_frees_its_buffer() {
        let mut s: SmallMap<u64, u64> = SmallMap::default();
        s.insert(1, 1);
        s.insert(2, 2);
        s.remove(&1);
        assert!(matches!(&s, SmallMap::Small(v) if v.capacity() > 0));
        s.remove(&2);
        assert!(matches!(&s, SmallMap::Small(v) if v.capacity() == 0));
    }
}
