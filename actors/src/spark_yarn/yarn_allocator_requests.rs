//! The YarnAllocator's outstanding container requests as its AMRMClient keeps them: requests
//! without a preference (counted in runs, so a request costs nothing per container), requests
//! naming nodes and racks (in the order they were added), the per-name table the RM is sent
//! (`ResourceRequest` per node and rack), and `getMatchingRequests` for a host, a rack or `*`;
//! mirrors Hadoop's `AMRMClientImpl` (`addContainerRequest`, `removeContainerRequest`,
//! `getMatchingRequests`, whose per-name request sets keep insertion order) as Spark's
//! `YarnAllocator` uses it.

use crate::spark_yarn::locality_preferred_container_placement_strategy::Name;
use sparkyard_messages::resource_manager::{LocalityAsk, ResourceName};
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::rc::Rc;

/// A node or rack a request names (the resource names other than `*`).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum NameKey {
    Node(Name),
    Rack(Name),
}

/// A pending `ContainerRequest` whose nodes are not null.
#[derive(Clone, Debug)]
pub struct LocalRequest {
    /// When it was added, among every request (`getMatchingRequests("*")` is in that order).
    seq: u64,
    pub nodes: Rc<[Name]>,
    pub racks: Rc<[Name]>,
}

/// The pending requests of the default resource profile.
#[derive(Debug, Default)]
pub struct PendingRequests {
    next_seq: u64,
    /// Requests without a preference: (sequence of the first, how many), oldest first.
    any: VecDeque<(u64, u32)>,
    any_total: u32,
    local: Vec<LocalRequest>,
    /// The containers still wanted on each node and rack.
    names: BTreeMap<NameKey, u32>,
    /// Names whose count changed since the last allocate call.
    dirty: BTreeSet<NameKey>,
}

impl PendingRequests {
    /// `getNumContainersPendingAllocate`.
    pub fn len(&self) -> u32 {
        self.any_total + self.local.len() as u32
    }

    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The pending requests without a preference (`anyHostRequests`).
    pub fn num_any(&self) -> u32 {
        self.any_total
    }

    /// The pending requests with node preferences, oldest first.
    pub fn local(&self) -> &[LocalRequest] {
        &self.local
    }

    /// `addContainerRequest` of `n` requests without a preference.
    pub fn add_any(&mut self, n: u32) {
        if n == 0 {
            return;
        }
        self.any.push_back((self.next_seq, n));
        self.next_seq += u64::from(n);
        self.any_total += n;
    }

    /// `addContainerRequest(new ContainerRequest(resource, nodes, racks, ...))`.
    pub fn add_local(&mut self, nodes: Rc<[Name]>, racks: Rc<[Name]>) {
        self.count_names(&nodes, &racks, true);
        self.local.push(LocalRequest {
            seq: self.next_seq,
            nodes,
            racks,
        });
        self.next_seq += 1;
    }

    /// `removeContainerRequest` of up to `n` requests without a preference, oldest first
    /// (`anyHostRequests.slice(0, n)`); how many were removed.
    pub fn remove_any(&mut self, n: u32) -> u32 {
        let mut left = n.min(self.any_total);
        let removed = left;
        while left > 0 {
            let Some(front) = self.any.front_mut() else {
                break;
            };
            let take = left.min(front.1);
            front.0 += u64::from(take);
            front.1 -= take;
            left -= take;
            if front.1 == 0 {
                self.any.pop_front();
            }
        }
        self.any_total -= removed;
        removed
    }

    /// `splitPendingAllocationsByLocality`: the positions of the requests naming one of
    /// `preferred` (locality matched) and of the others (stale), each in order.
    pub fn split(&self, preferred: &BTreeMap<Name, u32>) -> (Vec<usize>, Vec<usize>) {
        let mut matched = Vec::new();
        let mut stale = Vec::new();
        for (i, r) in self.local.iter().enumerate() {
            if r.nodes.iter().any(|n| preferred.contains_key(n)) {
                matched.push(i);
            } else {
                stale.push(i);
            }
        }
        (matched, stale)
    }

    /// `removeContainerRequest` of the requests at these positions (ascending).
    pub fn remove_local(&mut self, positions: &[usize]) {
        for &i in positions.iter().rev() {
            let r = self.local.remove(i);
            self.count_names(&r.nodes, &r.racks, false);
        }
    }

    /// `getMatchingRequests(priority, host)`: the oldest request naming the node, removed.
    pub fn match_node(&mut self, host: &str) -> bool {
        let at = self
            .local
            .iter()
            .position(|r| r.nodes.iter().any(|n| &**n == host));
        self.take_local(at)
    }

    /// `getMatchingRequests(priority, rack)`: the oldest request naming the rack, removed.
    pub fn match_rack(&mut self, rack: &str) -> bool {
        let at = self
            .local
            .iter()
            .position(|r| r.racks.iter().any(|n| &**n == rack));
        self.take_local(at)
    }

    /// `getMatchingRequests(priority, "*")`: the oldest request of all, removed.
    pub fn match_any(&mut self) -> bool {
        let any_seq = self.any.front().map(|(s, _)| *s);
        let local_seq = self.local.first().map(|r| r.seq);
        match (any_seq, local_seq) {
            (Some(a), Some(l)) if l < a => self.take_local(Some(0)),
            (Some(_), _) => self.remove_any(1) == 1,
            (None, Some(_)) => self.take_local(Some(0)),
            (None, None) => false,
        }
    }

    fn take_local(&mut self, at: Option<usize>) -> bool {
        match at {
            Some(i) => {
                self.remove_local(&[i]);
                true
            }
            None => false,
        }
    }

    /// The node and rack asks whose count changed, with their counts now (AMRMClient's `ask`).
    pub fn take_asks(&mut self) -> Vec<LocalityAsk> {
        let dirty = std::mem::take(&mut self.dirty);
        dirty
            .into_iter()
            .map(|key| {
                let num_containers = self.names.get(&key).copied().unwrap_or(0);
                let resource_name = match key {
                    NameKey::Node(n) => ResourceName::Node(n.to_string()),
                    NameKey::Rack(r) => ResourceName::Rack(r.to_string()),
                };
                LocalityAsk {
                    resource_name,
                    num_containers,
                }
            })
            .collect()
    }

    /// One request more or less on each of its nodes and racks.
    fn count_names(&mut self, nodes: &[Name], racks: &[Name], add: bool) {
        let keys = nodes
            .iter()
            .map(|n| NameKey::Node(n.clone()))
            .chain(racks.iter().map(|r| NameKey::Rack(r.clone())));
        for key in keys {
            let count = self.names.entry(key.clone()).or_default();
            if add {
                *count += 1;
            } else {
                *count = count.saturating_sub(1);
            }
            if *count == 0 {
                self.names.remove(&key);
            }
            self.dirty.insert(key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Rc<[Name]> {
        list.iter().map(|h| Name::from(*h)).collect()
    }

    // AMRMClientImpl keeps each resource name's requests in insertion order: "*" matches the
    // oldest request of all, a host the oldest naming it; removing a request lowers every
    // name it counted in, and the changed names go to the RM with their new counts.
    #[test]
    fn matching_follows_insertion_order_and_names_are_counted() {
        let mut p = PendingRequests::default();
        p.add_local(names(&["h1", "h2"]), names(&["/r1"]));
        p.add_any(2);
        p.add_local(names(&["h2"]), names(&["/r1"]));
        assert_eq!(p.len(), 4);
        let asks = p.take_asks();
        assert_eq!(asks.len(), 3);
        assert!(asks.contains(&LocalityAsk {
            resource_name: ResourceName::Node("h2".into()),
            num_containers: 2
        }));
        assert!(p.match_node("h2"));
        assert_eq!(&*p.local()[0].nodes, &*names(&["h2"]));
        assert!(p.match_any(), "the any-host run is now the oldest");
        assert_eq!((p.num_any(), p.local().len()), (1, 1));
        assert!(!p.match_rack("/r2"));
        assert!(p.match_rack("/r1"));
        let asks = p.take_asks();
        assert!(asks.iter().all(|a| a.num_containers == 0));
        assert_eq!(p.remove_any(5), 1);
        assert!(p.is_empty());
    }
}
