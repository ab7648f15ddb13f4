//! Where a block manager replicates a block: Spark's default `RandomBlockReplicationPolicy`
//! (storage/BlockReplicationPolicy.scala) over the peers `BlockManager.getPeers` keeps sorted by
//! `BlockManagerId.hashCode`, seeded with the block id's hash, so a decommissioning executor's
//! cached blocks go to the peers a real Spark 4.0 picks. Plain functions (the JVM's hashes and
//! `java.util.Random`), unit-tested against values a Spark 4.0.0 JVM computed.

use crate::examples::java_random::JavaRandom;
use crate::spark_core::block_manager_master::RddBlockId;
use sparkyard_messages::jvm_text::java_string_hash;
use sparkyard_messages::task::BlockManagerPeer;

/// `scala.runtime.Statics.mix` (MurmurHash3's round).
fn mix(hash: i32, data: i32) -> i32 {
    let k = data
        .wrapping_mul(0xcc9e_2d51_u32 as i32)
        .rotate_left(15)
        .wrapping_mul(0x1b87_3593);
    let h = (hash ^ k).rotate_left(13);
    h.wrapping_mul(5).wrapping_add(0xe654_6b64_u32 as i32)
}

/// `scala.runtime.Statics.finalizeHash` (MurmurHash3's avalanche of `hash ^ length`).
fn finalize_hash(hash: i32, length: i32) -> i32 {
    let mut h = (hash ^ length) as u32;
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^= h >> 16;
    h as i32
}

/// `RDDBlockId.hashCode`: the case class's synthesized hash (seed 0xcafebabe, the product
/// prefix, then each field), as the 4.0.0 jar's bytecode computes it.
pub fn rdd_block_id_hash(block: RddBlockId) -> i32 {
    let mut h = 0xcafe_babe_u32 as i32;
    h = mix(h, java_string_hash("RDDBlockId"));
    h = mix(h, block.rdd_id as i32);
    h = mix(h, block.partition as i32);
    finalize_hash(h, 2)
}

/// `BlockManagerId.hashCode`: `((executorId.hashCode * 41 + host.hashCode) * 41 + port) * 41 +
/// topologyInfo.hashCode`, with no topology (`None.hashCode` = "None".hashCode).
pub fn block_manager_id_hash(executor_id: &str, host: &str, port: u16) -> i32 {
    let h = java_string_hash(executor_id)
        .wrapping_mul(41)
        .wrapping_add(java_string_hash(host));
    h.wrapping_mul(41)
        .wrapping_add(i32::from(port))
        .wrapping_mul(41)
        .wrapping_add(java_string_hash("None"))
}

/// `BlockManager.getPeers`: the master's list `sortBy(_.hashCode)` (a stable sort).
pub fn sort_peers(peers: &mut [BlockManagerPeer]) {
    peers.sort_by_key(|p| {
        block_manager_id_hash(&p.id.executor_id.to_string(), &p.id.host, p.id.port)
    });
}

/// What `RandomBlockReplicationPolicy.prioritize` returns for one replica wanted.
#[derive(Debug, PartialEq, Eq)]
pub enum Prioritized {
    /// The peer to try first (an index into the candidates).
    First(usize),
    /// No candidate: the policy warns `Expecting 1 replicas with only 0 peer/s.`.
    NoPeers,
}

/// `RandomBlockReplicationPolicy.prioritize(.., peers, .., blockId, numReplicas = 1)`:
/// `new Random(blockId.hashCode)`; more peers than replicas -> `getRandomSample`, whose one
/// draw (Floyd's algorithm with m = 1) is `nextInt(n)`; exactly one peer -> that peer
/// (`random.shuffle` of one).
pub fn prioritize_one(block: RddBlockId, candidates: usize) -> Prioritized {
    match candidates {
        0 => Prioritized::NoPeers,
        1 => Prioritized::First(0),
        n => {
            let mut random = JavaRandom::new(i64::from(rdd_block_id_hash(block)));
            Prioritized::First(random.next_int(n as i32) as usize)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(rdd_id: u32, partition: u32) -> RddBlockId {
        RddBlockId { rdd_id, partition }
    }

    // RDDBlockId.hashCode and BlockManagerId.hashCode as a Spark 4.0.0 JVM (pyspark 4.0.0's
    // jars, through py4j) returns them: `RDDBlockId(1, 0).hashCode()` etc.
    #[test]
    fn block_and_block_manager_hashes_are_the_jvms() {
        assert_eq!(java_string_hash("None"), 2_433_880);
        assert_eq!(rdd_block_id_hash(b(1, 0)), RDD_1_0_HASH);
        assert_eq!(rdd_block_id_hash(b(0, 3)), RDD_0_3_HASH);
        assert_eq!(
            block_manager_id_hash("3", "nm-7.sparkyard.internal", 38003),
            BM_3_HASH
        );
    }

    // RandomBlockReplicationPolicy.prioritize: one candidate is taken as is, none is the
    // warning case, several are drawn with the block's seed (the same block always picks the
    // same index of the same sorted list).
    #[test]
    fn the_policy_draws_one_peer_with_the_blocks_seed() {
        assert_eq!(prioritize_one(b(1, 0), 0), Prioritized::NoPeers);
        assert_eq!(prioritize_one(b(1, 0), 1), Prioritized::First(0));
        let mut r = JavaRandom::new(i64::from(rdd_block_id_hash(b(1, 0))));
        let want = r.next_int(3) as usize;
        assert_eq!(prioritize_one(b(1, 0), 3), Prioritized::First(want));
        assert_eq!(prioritize_one(b(1, 0), 3), prioritize_one(b(1, 0), 3));
        // A Spark 4.0.0 JVM's `new RandomBlockReplicationPolicy().prioritize(bm3, List(bm3,
        // bm4, bm5), Set(), RDDBlockId(r, p), 1)` (py4j): rdd_1_0 -> bm4, rdd_1_1 -> bm3,
        // rdd_1_2 -> bm4, rdd_0_3 -> bm4.
        for (block, index) in [(b(1, 0), 1), (b(1, 1), 0), (b(1, 2), 1), (b(0, 3), 1)] {
            assert_eq!(
                prioritize_one(block, 3),
                Prioritized::First(index),
                "{block}"
            );
        }
    }

    const RDD_1_0_HASH: i32 = -1_781_548_581;
    const RDD_0_3_HASH: i32 = 363_776_121;
    const BM_3_HASH: i32 = 603_896_263;
}
