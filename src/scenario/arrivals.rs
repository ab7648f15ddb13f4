//! `[[workload.applications]]` validated: applications that arrive on the scenario's cluster
//! without event logs (issue 28 item 4), as Hadoop's Scheduler Load Simulator (`SLSRunner`)
//! reads a trace of applications: each entry's queue (one of the cluster's), user, arrival
//! process (fixed times, or a Poisson rate drawn from the run's seed) and program (a bundled
//! class, a synthetic workload, or an event log), with its spark-submit flags. `crate::arrivals`
//! plans and runs them (it needs `replay` for the event logs, which this room may not import).

use super::workload::{RawApplication, RawWorkload, workload};
use crate::conf::cluster::ClusterConfig;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sparkyard_actors::simulation::config::UserProgram;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// At most this many applications in one run (a rate that would draw more is a mistake).
pub const MAX_APPLICATIONS: usize = 100_000;

/// When an entry's applications arrive.
#[derive(Clone, Debug)]
pub enum Times {
    At(Vec<u64>),
    Poisson {
        per_hour: f64,
        from_ms: u64,
        until_ms: u64,
    },
}

/// What an entry's applications run.
#[derive(Clone)]
pub enum Program {
    /// A bundled program's class and arguments.
    Bundled {
        class: String,
        args: Vec<String>,
    },
    Synthetic(SyntheticWorkload),
    /// An event log's path (resolved against the scenario's directory).
    EventLog(PathBuf),
}

/// An entry's synthetic workload, drawn per application.
#[derive(Clone)]
pub struct SyntheticWorkload(Arc<RawWorkload>);

impl SyntheticWorkload {
    /// The program of one application, its task durations drawn from `seed`.
    pub fn draw(&self, seed: u64, cluster: &ClusterConfig) -> Result<UserProgram, String> {
        workload(&self.0, seed, cluster)
    }

    /// Its spark.app.name.
    pub fn app_name(&self) -> &str {
        self.0.app_name()
    }
}

/// A validated entry.
#[derive(Clone)]
pub struct Entry {
    /// Its `name`, or `applications[i]`.
    pub label: String,
    pub queue: String,
    pub user: Option<String>,
    pub times: Times,
    pub program: Program,
    /// spark-submit's flags for the entry's settings (`--num-executors 3`, `--conf k=v`, ...).
    pub flags: Vec<String>,
    /// The scenario's directory: a relative `spark.scheduler.allocation.file` is read from it.
    pub dir: PathBuf,
}

/// The scenario's arrivals, validated against its cluster.
#[derive(Clone)]
pub struct Arrivals {
    pub entries: Vec<Entry>,
}

/// Validates the entries against the cluster (queues, classes, rates, workloads; event logs
/// read, relative to `dir`). Errors name the entry and the key.
pub(super) fn arrivals(
    raw: &[RawApplication],
    cluster: &ClusterConfig,
    dir: &Path,
) -> Result<Arrivals, String> {
    let entries = raw
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let at = format!("workload.applications[{i}]");
            let label = a
                .name
                .clone()
                .unwrap_or_else(|| format!("applications[{i}]"));
            entry(a, i, label, cluster, dir).map_err(|m| format!("{at}.{m}"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Arrivals { entries })
}

fn entry(
    a: &RawApplication,
    i: usize,
    label: String,
    cluster: &ClusterConfig,
    dir: &Path,
) -> Result<Entry, String> {
    if cluster.yarn.queue(&a.queue).is_none() {
        return Err(format!(
            "queue: `{}` is not a queue of the cluster (its queues: {}); add it as a [[cluster.queues]] entry or submit to one of them",
            a.queue,
            cluster.yarn.queue_names()
        ));
    }
    let times = times_of(a)?;
    let program = program_of(a, i, cluster, dir)?;
    Ok(Entry {
        label,
        queue: a.queue.clone(),
        user: a.user.clone(),
        times,
        program,
        flags: flags_of(a),
        dir: dir.to_path_buf(),
    })
}

fn times_of(a: &RawApplication) -> Result<Times, String> {
    match (&a.at_ms, &a.poisson) {
        (Some(at), None) if at.is_empty() => Err("at_ms: give at least one time, ms".into()),
        (Some(at), None) => Ok(Times::At(at.clone())),
        (None, Some(p)) => {
            if !p.per_hour.is_finite() || p.per_hour <= 0.0 {
                return Err(format!(
                    "poisson.per_hour: must be a positive number of arrivals an hour, got {}",
                    p.per_hour
                ));
            }
            if p.until_ms <= p.from_ms {
                return Err(format!(
                    "poisson.until_ms: {} must be after from_ms ({})",
                    p.until_ms, p.from_ms
                ));
            }
            let mean = p.per_hour * (p.until_ms - p.from_ms) as f64 / 3_600_000.0;
            if mean > (MAX_APPLICATIONS / 2) as f64 {
                return Err(format!(
                    "poisson.per_hour: {} an hour over {} ms is {mean:.0} applications on average; at most {} are simulated in one run",
                    p.per_hour,
                    p.until_ms - p.from_ms,
                    MAX_APPLICATIONS / 2
                ));
            }
            Ok(Times::Poisson {
                per_hour: p.per_hour,
                from_ms: p.from_ms,
                until_ms: p.until_ms,
            })
        }
        (None, None) => Err(
            "at_ms: give the arrivals: at_ms = [0, 60000] (fixed times) or poisson = { per_hour = 100, until_ms = 3600000 }".into(),
        ),
        (Some(_), Some(_)) => Err(
            "poisson: give one arrival process, at_ms (fixed times) or poisson (a seeded rate), not both".into(),
        ),
    }
}

fn program_of(
    a: &RawApplication,
    i: usize,
    cluster: &ClusterConfig,
    dir: &Path,
) -> Result<Program, String> {
    match (&a.class, &a.jobs, &a.event_log) {
        (Some(class), None, None) => {
            let simulated: Vec<&str> =
                sparkyard_actors::simulation::facts::simulated_classes().collect();
            if !simulated.contains(&class.as_str()) {
                return Err(format!(
                    "class: `{class}` is not a program sparkyard simulates ({}); give `jobs` to run a synthetic workload",
                    simulated.join(", ")
                ));
            }
            Ok(Program::Bundled {
                class: class.clone(),
                args: a.args.clone(),
            })
        }
        (None, Some(jobs), None) => {
            let w = RawWorkload::of_jobs(a.app_name.clone(), jobs.clone());
            // Drawn once here so a bad stage is a load error, not a run's.
            workload(&w, 0, cluster).map_err(|m| {
                m.strip_prefix("workload.")
                    .map_or(m.clone(), ToString::to_string)
            })?;
            Ok(Program::Synthetic(SyntheticWorkload(Arc::new(w))))
        }
        (None, None, Some(path)) => {
            let full = dir.join(path);
            if !full.exists() {
                return Err(format!(
                    "event_log: `{path}` does not exist (a path relative to the scenario's directory: {})",
                    full.display()
                ));
            }
            Ok(Program::EventLog(full))
        }
        _ => Err(format!(
            "class: give exactly one of `class` (a bundled program), `jobs` (a synthetic workload) or `event_log` (an event log to replay) for entry {i}"
        )),
    }
}

/// spark-submit's flags for an entry's own settings.
fn flags_of(a: &RawApplication) -> Vec<String> {
    let mut w = Vec::new();
    let mut flag = |name: &str, v: Option<String>| {
        if let Some(v) = v {
            w.push(name.to_string());
            w.push(v);
        }
    };
    flag("--num-executors", a.num_executors.map(|n| n.to_string()));
    flag("--executor-memory", a.executor_memory.clone());
    flag("--executor-cores", a.executor_cores.map(|n| n.to_string()));
    flag("--driver-memory", a.driver_memory.clone());
    for (k, v) in &a.conf {
        w.push("--conf".into());
        w.push(format!("{k}={v}"));
    }
    w
}

/// A seed of its own for stream `stream` of the run's `seed` (SplitMix64's finaliser), so
/// entries and applications draw independently and every draw follows the run's seed.
pub fn derived_seed(seed: u64, stream: u64) -> u64 {
    let mut z = seed ^ stream.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The arrival times of entry `index` under the run's `seed`: its fixed times, or a Poisson
/// process's (exponential gaps of mean 3,600,000 / per_hour ms, from `from_ms`, before
/// `until_ms`).
pub fn arrival_times(times: &Times, seed: u64, index: usize) -> Vec<u64> {
    match times {
        Times::At(at) => at.clone(),
        Times::Poisson {
            per_hour,
            from_ms,
            until_ms,
        } => {
            let mut rng = ChaCha8Rng::seed_from_u64(derived_seed(seed, 0xa1 + index as u64));
            let mean_gap_ms = 3_600_000.0 / per_hour;
            let mut out = Vec::new();
            let mut t = *from_ms as f64;
            loop {
                let u: f64 = rng.random::<f64>().max(1e-12);
                t += -u.ln() * mean_gap_ms;
                if t >= *until_ms as f64 || out.len() >= MAX_APPLICATIONS {
                    return out;
                }
                out.push(t.floor() as u64);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conf::cluster::{ClusterSource, load_cluster};

    fn cluster() -> ClusterConfig {
        load_cluster(ClusterSource::Embedded).expect("the embedded cluster")
    }

    fn entries(text: &str) -> Result<Arrivals, String> {
        #[derive(serde::Deserialize)]
        struct File {
            applications: Vec<RawApplication>,
        }
        let f: File = toml::from_str(text).expect("entries");
        arrivals(&f.applications, &cluster(), Path::new("."))
    }

    fn error(text: &str) -> String {
        entries(text).err().unwrap_or_default()
    }

    const PI: &str = "class = \"org.apache.spark.examples.SparkPi\"\n";

    /// The Poisson arrivals come from the run's seed (issue 30 item 1: the run's seed reaches
    /// every draw): the same seed draws the same times, another seed other times; they fall in
    /// [from_ms, until_ms) at about the rate asked.
    #[test]
    fn poisson_arrivals_follow_the_runs_seed_and_rate() {
        let times = Times::Poisson {
            per_hour: 3600.0,
            from_ms: 1000,
            until_ms: 3_601_000,
        };
        let a = arrival_times(&times, 1, 0);
        assert_eq!(a, arrival_times(&times, 1, 0));
        assert_ne!(a, arrival_times(&times, 2, 0));
        assert_ne!(a, arrival_times(&times, 1, 1), "each entry draws its own");
        // 3600 expected; a Poisson count's standard deviation is 60.
        assert!((3400..3800).contains(&a.len()), "{}", a.len());
        assert!(a.windows(2).all(|w| w[0] <= w[1]));
        assert!(a.iter().all(|t| (1000..3_601_000).contains(t)), "{a:?}");
    }

    /// An unknown queue, a bad rate, an unknown class, two arrival processes, two programs:
    /// each error names the entry and the key, and says how to fix it.
    #[test]
    fn errors_name_the_entry_and_the_key() {
        let queue = error(&format!(
            "[[applications]]\nqueue = \"adhoc\"\nat_ms = [0]\n{PI}"
        ));
        assert!(
            queue.starts_with("workload.applications[0].queue: `adhoc` is not a queue of the cluster (its queues: default)"),
            "{queue}"
        );
        let rate = error(&format!(
            "[[applications]]\nqueue = \"default\"\npoisson = {{ per_hour = 0, until_ms = 1000 }}\n{PI}"
        ));
        assert!(
            rate.starts_with(
                "workload.applications[0].poisson.per_hour: must be a positive number"
            ),
            "{rate}"
        );
        let window = error(&format!(
            "[[applications]]\nqueue = \"default\"\npoisson = {{ per_hour = 5, from_ms = 10, until_ms = 10 }}\n{PI}"
        ));
        assert!(
            window.starts_with(
                "workload.applications[0].poisson.until_ms: 10 must be after from_ms (10)"
            ),
            "{window}"
        );
        let class = error(
            "[[applications]]\nqueue = \"default\"\nat_ms = [0]\n[[applications]]\nqueue = \"default\"\nat_ms = [0]\nclass = \"com.example.Nope\"\n",
        );
        assert!(
            class.starts_with("workload.applications[0].class: give exactly one of"),
            "{class}"
        );
        let unknown = error(
            "[[applications]]\nqueue = \"default\"\nat_ms = [0]\nclass = \"com.example.Nope\"\n",
        );
        assert!(
            unknown.starts_with("workload.applications[0].class: `com.example.Nope` is not a program sparkyard simulates"),
            "{unknown}"
        );
        let both = error(&format!(
            "[[applications]]\nqueue = \"default\"\nat_ms = [0]\npoisson = {{ per_hour = 5, until_ms = 10 }}\n{PI}"
        ));
        assert!(
            both.starts_with("workload.applications[0].poisson: give one arrival process"),
            "{both}"
        );
        let none = error(&format!("[[applications]]\nqueue = \"default\"\n{PI}"));
        assert!(
            none.starts_with("workload.applications[0].at_ms: give the arrivals"),
            "{none}"
        );
    }

    /// A synthetic entry's bad stage is refused when the file loads, under the entry's name;
    /// a missing event log names its path.
    #[test]
    fn a_synthetic_or_logged_entry_is_checked_when_loaded() {
        let stage = error(
            "[[applications]]\nqueue = \"default\"\nat_ms = [0]\n[[applications.jobs]]\ncall_site = \"c\"\n[[applications.jobs.stages]]\nname = \"s\"\ntasks = 0\nduration = { fixed_ms = 1 }\n",
        );
        assert!(
            stage.starts_with(
                "workload.applications[0].jobs[0].stages[0].tasks: must be between 1 and 10000000"
            ),
            "{stage}"
        );
        let log = error(
            "[[applications]]\nqueue = \"default\"\nat_ms = [0]\nevent_log = \"no/such/log\"\n",
        );
        assert!(
            log.starts_with("workload.applications[0].event_log: `no/such/log` does not exist"),
            "{log}"
        );
    }

    /// An entry's own spark-submit settings become spark-submit's flags.
    #[test]
    fn an_entrys_settings_are_spark_submit_flags() {
        let a = entries(&format!(
            "[[applications]]\nqueue = \"default\"\nat_ms = [0]\nnum_executors = 3\nexecutor_memory = \"2g\"\nconf = {{ \"spark.executor.cores\" = \"2\" }}\n{PI}"
        ))
        .expect("valid");
        assert_eq!(
            a.entries[0].flags.join(" "),
            "--num-executors 3 --executor-memory 2g --conf spark.executor.cores=2"
        );
    }
}
