//! The memory a BlockManager reports (its storage + execution pool): owns the heap a JVM reports
//! for `-Xmx`, `UnifiedMemoryManager.getMaxMemory` and the `Utils.bytesToString` text Spark logs
//! it with; mirrors `org.apache.spark.memory.UnifiedMemoryManager` (Spark 4.0,
//! core/src/main/scala/org/apache/spark/memory/UnifiedMemoryManager.scala) and
//! `org.apache.spark.util.Utils.bytesToString`.

/// `RESERVED_SYSTEM_MEMORY_BYTES`: 300 MiB kept back from the heap.
pub const RESERVED_SYSTEM_MEMORY_BYTES: u64 = 300 * 1024 * 1024;

/// `spark.memory.fraction`'s default (`config.MEMORY_FRACTION`). sparkyard does not simulate the
/// key, so every block manager uses the default.
pub const MEMORY_FRACTION: f64 = 0.6;

const MIB: u64 = 1 << 20;

/// `Runtime.getRuntime.maxMemory` of a JVM started with `-Xmx<heap_mb>m`, in bytes (Spark's
/// `systemMemory`). The YARN containers' JVMs run Java 17's default collector, G1, which reports
/// the whole of `-Xmx` (measured on OpenJDK 17.0.15: 1g -> 1073741824, 2g -> 2147483648,
/// 4g -> 4294967296, 8g -> 8589934592; Parallel GC would report less, 1g -> 954728448, as it
/// leaves one survivor space out).
pub fn jvm_max_memory(heap_mb: u64) -> u64 {
    heap_mb.saturating_mul(MIB)
}

/// `UnifiedMemoryManager.getMaxMemory` for a JVM with `-Xmx<heap_mb>m`: (systemMemory -
/// reservedMemory) x spark.memory.fraction, truncated to a long. Spark refuses a heap under 1.5 x
/// the reserved memory (INVALID_DRIVER_MEMORY / INVALID_EXECUTOR_MEMORY); sparkyard does not
/// simulate that refusal, and such a heap reports what is left after the reserve (or nothing).
pub fn max_memory(heap_mb: u64) -> u64 {
    let usable = jvm_max_memory(heap_mb).saturating_sub(RESERVED_SYSTEM_MEMORY_BYTES);
    (usable as f64 * MEMORY_FRACTION) as u64
}

/// `UnifiedMemoryManager.getMaxMemory`'s refusals (Spark 4.0's SparkIllegalArgumentException
/// with the error classes INVALID_DRIVER_MEMORY / INVALID_EXECUTOR_MEMORY, sqlState F0000):
/// the JVM's heap below 1.5 x the reserved memory, or `spark.executor.memory` (checked only when
/// set) below that minimum. Returns the exception as the JVM prints it.
pub fn check_min_memory(heap_mb: u64, executor_memory_bytes: Option<u64>) -> Result<(), String> {
    let system = jvm_max_memory(heap_mb);
    let min = (RESERVED_SYSTEM_MEMORY_BYTES as f64 * 1.5).ceil() as u64;
    if system < min {
        return Err(format!(
            "org.apache.spark.SparkIllegalArgumentException: [INVALID_DRIVER_MEMORY] System memory \
             {system} must be at least {min}.\nPlease increase heap size using the --driver-memory \
             option or \"spark.driver.memory\" in Spark configuration. SQLSTATE: F0000"
        ));
    }
    match executor_memory_bytes {
        Some(executor) if executor < min => Err(format!(
            "org.apache.spark.SparkIllegalArgumentException: [INVALID_EXECUTOR_MEMORY] Executor \
             memory {executor} must be at least {min}.\nPlease increase executor memory using the \
             --executor-memory option or \"spark.executor.memory\" in Spark configuration. \
             SQLSTATE: F0000"
        )),
        _ => Ok(()),
    }
}

/// `ResourceUtils.validateTaskCpusLargeEnough` (SparkContext.createTaskScheduler).
pub fn check_task_cpus(executor_cores: u32, task_cpus: u32) -> Result<(), String> {
    if executor_cores < task_cpus {
        return Err(format!(
            "org.apache.spark.SparkException: The number of cores per executor (={executor_cores}) \
             has to be >= the number of cpus per task = {task_cpus}."
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use sparkyard_messages::jvm_text::bytes_to_string;

    /// Spark 4.0 on Java 17 (G1): `Registering block manager ... with N RAM` and `MemoryStore
    /// started with capacity N` for `--executor-memory` / `--driver-memory` of each size.
    /// 1g's 434.4 MiB is what a real Spark 4.0 logs; the others follow from getMaxMemory over
    /// the measured `Runtime.getRuntime.maxMemory` (`jvm_max_memory`).
    #[test]
    fn max_memory_per_heap_size() {
        let table: &[(u64, u64, u64, &str)] = &[
            // heap MiB, JVM maxMemory, getMaxMemory, logged
            (1024, 1_073_741_824, 455_501_414, "434.4 MiB"),
            (2048, 2_147_483_648, 1_099_746_508, "1048.8 MiB"),
            (4096, 4_294_967_296, 2_388_236_697, "2.2 GiB"),
            (8192, 8_589_934_592, 4_965_217_075, "4.6 GiB"),
            (512, 536_870_912, 133_378_867, "127.2 MiB"),
        ];
        for &(heap_mb, jvm, max, text) in table {
            assert_eq!(jvm_max_memory(heap_mb), jvm, "{heap_mb}m");
            assert_eq!(max_memory(heap_mb), max, "{heap_mb}m");
            assert_eq!(bytes_to_string(max), text, "{heap_mb}m");
        }
    }

    #[test]
    fn a_heap_below_the_reserve_reports_nothing() {
        assert_eq!(max_memory(256), 0);
        assert_eq!(bytes_to_string(0), "0.0 B");
    }

    // UnifiedMemoryManager.getMaxMemory (Spark 4.0): minimum = ceil(1.5 x 300 MiB) = 471859200.
    #[test]
    fn minimum_memory_refusals() {
        assert_eq!(check_min_memory(1024, Some(1024 << 20)), Ok(()));
        let driver = check_min_memory(100, None).unwrap_err();
        assert!(
            driver.contains(
                "[INVALID_DRIVER_MEMORY] System memory 104857600 must be at least 471859200."
            ),
            "{driver}"
        );
        let exec = check_min_memory(1024, Some(100 << 20)).unwrap_err();
        assert!(
            exec.contains(
                "[INVALID_EXECUTOR_MEMORY] Executor memory 104857600 must be at least 471859200."
            ),
            "{exec}"
        );
        assert_eq!(check_min_memory(450, None), Ok(()));
    }

    // SparkContextSuite "Avoid setting spark.task.cpus unreasonably (SPARK-27192)".
    #[test]
    fn task_cpus_above_executor_cores() {
        assert_eq!(
            check_task_cpus(1, 2).unwrap_err(),
            "org.apache.spark.SparkException: The number of cores per executor (=1) has to be >= the number of cpus per task = 2."
        );
        assert_eq!(check_task_cpus(2, 2), Ok(()));
    }
}
