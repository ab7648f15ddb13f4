//! A map and a set for the many actors and processes that hold a handful of entries (an
//! executor's pending asks, a NodeManager's containers, an executor's one peer): a short list
//! while small, which costs tens of bytes where a B-tree's first node costs hundreds, and a
//! B-tree once large, so a busy actor (a driver with a peer per executor) never scans a long list.
//! The map is looked up by key, and read whole only as its keys in order (`sorted_keys`), so its
//! own order cannot matter; the set is kept
//! sorted and iterates in order, as the `BTreeSet` it stands for. Beside them, `DenseMap`: a table
//! keyed by ids handed out in order (executor ids, task ids), a slot per id, iterated in id order.

use smallvec::SmallVec;
use sparkyard_messages::ids::{ExecutorId, TaskId};
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::marker::PhantomData;

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

    /// Its keys in ascending order (a list's order is its insertions' and removals', which no
    /// caller may see).
    pub fn sorted_keys(&self) -> Vec<K> {
        match self {
            SmallMap::Small(v) => {
                let mut keys: Vec<K> = v.iter().map(|(k, _)| *k).collect();
                keys.sort_unstable();
                keys
            }
            SmallMap::Large(m) => m.keys().copied().collect(),
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
/// so it reads exactly as the `BTreeSet` it stands for. Up to two keys live inline: the driver's
/// running tasks of an executor of one or two cores are then read where the set is, not in an
/// allocation of their own (a cache miss per task end with a thousand executors taking turns).
pub enum SmallSet<K> {
    Small(SmallVec<[K; 2]>),
    Large(BTreeSet<K>),
}

impl<K> Default for SmallSet<K> {
    fn default() -> Self {
        SmallSet::Small(SmallVec::new())
    }
}

impl<K: Ord + Copy> SmallSet<K> {
    pub fn is_empty(&self) -> bool {
        match self {
            SmallSet::Small(v) => v.is_empty(),
            SmallSet::Large(s) => s.is_empty(),
        }
    }

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
                    let mut s: BTreeSet<K> = v.drain(..).collect();
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
            SmallSet::Small(v) => v.into_vec(),
            SmallSet::Large(s) => s.into_iter().collect(),
        }
    }
}

/// A key of a `DenseMap`: an id handed out in increasing order.
pub trait DenseKey: Copy {
    fn index(self) -> u64;
    /// The key of a slot (the inverse of `index`).
    fn from_index(index: u64) -> Self;
}

impl DenseKey for u32 {
    fn index(self) -> u64 {
        self.into()
    }
    fn from_index(index: u64) -> Self {
        index as u32
    }
}

impl DenseKey for ExecutorId {
    fn index(self) -> u64 {
        self.0.into()
    }
    fn from_index(index: u64) -> Self {
        ExecutorId(index as u32)
    }
}

impl DenseKey for TaskId {
    fn index(self) -> u64 {
        self.0
    }
    fn from_index(index: u64) -> Self {
        TaskId(index)
    }
}

/// A map keyed by ids handed out in increasing order (executor ids, task ids): a slot per id
/// from the oldest live one to the newest, so an entry costs its value and no tree node, and a
/// lookup is an index. Empty slots at the front are dropped as they appear, so a table of
/// running tasks spans the ids from the oldest running task, not every task ever launched.
/// Ids below the first live one are still accepted (the list grows at the front).
pub struct DenseMap<K, V> {
    base: u64,
    slots: VecDeque<Option<V>>,
    /// The entries (slots holding a value).
    len: usize,
    key: PhantomData<K>,
}

impl<K, V> Default for DenseMap<K, V> {
    fn default() -> Self {
        DenseMap {
            base: 0,
            slots: VecDeque::new(),
            len: 0,
            key: PhantomData,
        }
    }
}

impl<K: DenseKey, V> DenseMap<K, V> {
    fn slot(&self, id: K) -> Option<usize> {
        id.index()
            .checked_sub(self.base)
            .and_then(|i| usize::try_from(i).ok())
            .filter(|i| *i < self.slots.len())
    }

    pub fn get(&self, id: K) -> Option<&V> {
        self.slots[self.slot(id)?].as_ref()
    }

    pub fn get_mut(&mut self, id: K) -> Option<&mut V> {
        let i = self.slot(id)?;
        self.slots[i].as_mut()
    }

    pub fn contains(&self, id: K) -> bool {
        self.get(id).is_some()
    }

    pub fn len(&self) -> usize {
        self.len
    }

    /// The values in ascending id order, as a `BTreeMap`'s `values()`.
    pub fn values(&self) -> impl Iterator<Item = &V> {
        self.slots.iter().flatten()
    }

    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut V> {
        self.slots.iter_mut().flatten()
    }

    /// The entries in ascending id order, as a `BTreeMap`'s `iter()`.
    pub fn iter(&self) -> impl Iterator<Item = (K, &V)> {
        let base = self.base;
        self.slots
            .iter()
            .enumerate()
            .filter_map(move |(i, v)| Some((K::from_index(base + i as u64), v.as_ref()?)))
    }

    /// The entries in ascending id order, as a `BTreeMap`'s `iter_mut()`.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (K, &mut V)> {
        let base = self.base;
        self.slots
            .iter_mut()
            .enumerate()
            .filter_map(move |(i, v)| Some((K::from_index(base + i as u64), v.as_mut()?)))
    }

    /// Inserts or replaces; returns the value replaced (as `BTreeMap::insert`).
    #[inline]
    pub fn insert(&mut self, id: K, value: V) -> Option<V> {
        let id = id.index();
        if self.slots.is_empty() {
            self.base = id;
        }
        // The common case, one past the newest id (a task launched, an executor registered):
        // a push, not `resize_with`'s general growth.
        if id.checked_sub(self.base) == Some(self.slots.len() as u64) {
            self.slots.push_back(Some(value));
            self.len += 1;
            return None;
        }
        self.insert_anywhere(id, value)
    }

    #[inline(never)]
    fn insert_anywhere(&mut self, id: u64, value: V) -> Option<V> {
        while id < self.base {
            self.slots.push_front(None);
            self.base -= 1;
        }
        let i = usize::try_from(id - self.base).expect("a dense id within memory");
        if i >= self.slots.len() {
            self.slots.resize_with(i + 1, || None);
        }
        let old = self.slots[i].replace(value);
        if old.is_none() {
            self.len += 1;
        }
        old
    }

    pub fn remove(&mut self, id: K) -> Option<V> {
        let i = self.slot(id)?;
        let value = self.slots[i].take();
        if value.is_some() {
            self.len -= 1;
        }
        while let Some(None) = self.slots.front() {
            self.slots.pop_front();
            self.base += 1;
        }
        value
    }

    /// `entry(id).or_default()`.
    pub fn get_or_insert_default(&mut self, id: K) -> &mut V
    where
        V: Default,
    {
        let i = match self.slot(id) {
            Some(i) if self.slots[i].is_some() => i,
            _ => {
                self.insert(id, V::default());
                self.slot(id).expect("inserted")
            }
        };
        self.slots[i].as_mut().expect("inserted")
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
            assert!((0..51).all(|k| s.get(&k) == b.get(&k)));
            assert_eq!(s.get(&k), b.get(&k));
            assert_eq!(s.sorted_keys(), b.keys().copied().collect::<Vec<_>>());
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
        let mut d: DenseMap<u32, u32> = DenseMap::default();
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
            if i % 10 == 0 {
                *d.get_or_insert_default(k + 3) += 0;
                b.entry(k + 3).or_default();
            }
            if let (Some(x), Some(y)) = (d.get_mut(k), b.get_mut(&k)) {
                *x += 1;
                *y += 1;
            }
            assert!(d.values().eq(b.values()));
            assert_eq!(d.len(), b.len());
            assert!(
                d.iter_mut()
                    .map(|(k, v)| (k, *v))
                    .eq(b.iter().map(|(k, v)| (*k, *v)))
            );
        }
        // Ids one past the newest (insert's push), with replacements and removals between.
        for k in 200..400u32 {
            assert_eq!(d.insert(k, k), b.insert(k, k));
            if k % 3 == 0 {
                assert_eq!(d.insert(k - 1, 0), b.insert(k - 1, 0));
                assert_eq!(d.remove(k - 2), b.remove(&(k - 2)));
            }
            assert_eq!(
                *d.get_or_insert_default(k + 1),
                *b.entry(k + 1).or_default()
            );
            assert!(d.values().eq(b.values()));
            assert_eq!(d.len(), b.len());
        }
    }

    #[test]
    fn a_dense_map_spans_its_oldest_live_id_to_its_newest() {
        // Running tasks: a sliding window of ids, the oldest finishing first.
        let mut d: DenseMap<u32, u32> = DenseMap::default();
        for id in 0..1_000u32 {
            d.insert(id, id);
            if id >= 10 {
                assert_eq!(d.remove(id - 10), Some(id - 10));
            }
            assert!(d.slots.len() <= 11);
        }
        // A straggler holds the window open from its id; once it ends the front is dropped.
        d.insert(1_000, 1_000);
        for id in 1_001..1_100u32 {
            d.insert(id, id);
            if id - 1 != 1_000 {
                d.remove(id - 1);
            }
        }
        assert_eq!(d.get(1_000), Some(&1_000));
        assert_eq!(d.base, 990);
        for id in 990..1_000u32 {
            d.remove(id);
        }
        d.remove(1_000);
        assert_eq!((d.base, d.slots.len()), (1_099, 1));
        assert_eq!(d.values().copied().collect::<Vec<_>>(), vec![1_099]);
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
