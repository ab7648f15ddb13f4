//! A map and a set for the many actors and processes that hold a handful of entries (an
//! executor's pending asks, a NodeManager's containers, an executor's one peer): a short list
//! while small, which costs tens of bytes where a B-tree's first node costs hundreds, and a
//! B-tree once large, so a busy actor (a driver with a peer per executor) never scans a long list.
//! The map is only looked up by key (never iterated, so its order cannot matter); the set is kept
//! sorted and iterates in order, as the `BTreeSet` it stands for.

use std::collections::{BTreeMap, BTreeSet};

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

/// A set for the same case (a process's peers: an executor talks to its driver only, a driver
/// to every executor): a sorted list while small, a `BTreeSet` once large. Iterated in order,
/// so it reads exactly as the `BTreeSet` it stands for.
pub enum SmallSet<K> {
    Small(Vec<K>),
    Large(BTreeSet<K>),
}

impl<K> Default for SmallSet<K> {
    fn default() -> Self {
        SmallSet::Small(Vec::new())
    }
}

impl<K: Ord + Copy> SmallSet<K> {
    pub fn contains(&self, key: &K) -> bool {
        match self {
            SmallSet::Small(v) => v.binary_search(key).is_ok(),
            SmallSet::Large(s) => s.contains(key),
        }
    }

    pub fn insert(&mut self, key: K) {
        match self {
            SmallSet::Small(v) => match v.binary_search(&key) {
                Ok(_) => {}
                Err(at) if v.len() < SMALL => v.insert(at, key),
                Err(_) => {
                    let mut s: BTreeSet<K> = std::mem::take(v).into_iter().collect();
                    s.insert(key);
                    *self = SmallSet::Large(s);
                }
            },
            SmallSet::Large(s) => {
                s.insert(key);
            }
        }
    }

    pub fn remove(&mut self, key: &K) {
        match self {
            SmallSet::Small(v) => {
                if let Ok(i) = v.binary_search(key) {
                    v.remove(i);
                }
            }
            SmallSet::Large(s) => {
                s.remove(key);
            }
        }
    }

    /// The keys in ascending order.
    pub fn into_sorted(self) -> Vec<K> {
        match self {
            SmallSet::Small(v) => v,
            SmallSet::Large(s) => s.into_iter().collect(),
        }
    }
}

/// A map keyed by ids handed out in increasing order (an allocator's executor ids): a slot per
/// id from the first one inserted, so an entry costs its value and no tree node. Ids below the
/// first are still accepted (the list grows at the front; the allocator never does that).
pub struct DenseMap<V> {
    base: u32,
    slots: std::collections::VecDeque<Option<V>>,
}

impl<V> Default for DenseMap<V> {
    fn default() -> Self {
        DenseMap {
            base: 0,
            slots: std::collections::VecDeque::new(),
        }
    }
}

impl<V> DenseMap<V> {
    fn slot(&self, id: u32) -> Option<usize> {
        id.checked_sub(self.base)
            .map(|i| i as usize)
            .filter(|i| *i < self.slots.len())
    }

    pub fn get(&self, id: u32) -> Option<&V> {
        self.slots[self.slot(id)?].as_ref()
    }

    pub fn contains(&self, id: u32) -> bool {
        self.get(id).is_some()
    }

    pub fn insert(&mut self, id: u32, value: V) {
        if self.slots.is_empty() {
            self.base = id;
        }
        while id < self.base {
            self.slots.push_front(None);
            self.base -= 1;
        }
        let i = (id - self.base) as usize;
        if i >= self.slots.len() {
            self.slots.resize_with(i + 1, || None);
        }
        self.slots[i] = Some(value);
    }

    pub fn remove(&mut self, id: u32) -> Option<V> {
        let i = self.slot(id)?;
        self.slots[i].take()
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
    fn small_set_behaves_like_a_btree_set_small_and_large() {
        let mut s: SmallSet<u32> = SmallSet::default();
        let mut b = BTreeSet::new();
        for i in 0..300u32 {
            let k = (i * 37) % 61;
            if i % 3 == 2 {
                s.remove(&k);
                b.remove(&k);
            } else {
                s.insert(k);
                b.insert(k);
            }
            assert_eq!(s.contains(&k), b.contains(&k));
        }
        assert!(matches!(s, SmallSet::Large(_)));
        assert_eq!(s.into_sorted(), b.into_iter().collect::<Vec<_>>());
        let mut small: SmallSet<u32> = SmallSet::default();
        for k in [5, 1, 3, 1] {
            small.insert(k);
        }
        assert_eq!(small.into_sorted(), vec![1, 3, 5]);
    }

    #[test]
    fn dense_map_behaves_like_a_btree_map() {
        let mut d: DenseMap<u32> = DenseMap::default();
        let mut b = BTreeMap::new();
        for i in 0..500u32 {
            let k = 100 + (i * 37) % 97;
            // A few ids below the first one inserted.
            let k = if i % 50 == 49 { k - 100 + i % 7 } else { k };
            if i % 4 == 3 {
                assert_eq!(d.remove(k), b.remove(&k));
            } else {
                d.insert(k, i);
                b.insert(k, i);
            }
            for probe in [k, k + 1, k.saturating_sub(1), 0, 1_000] {
                assert_eq!(d.get(probe), b.get(&probe));
                assert_eq!(d.contains(probe), b.contains_key(&probe));
            }
        }
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
