//! YARN and Spark identifiers with their exact string forms: ApplicationId,
//! ApplicationAttemptId, ContainerId (Hadoop `records`), NodeId, and Spark's executor and task ids.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// `application_<clusterTimestamp>_<sequence, at least 4 digits>` (Hadoop `ApplicationId`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ApplicationId {
    pub cluster_timestamp: u64,
    pub id: u32,
}

/// `appattempt_<ts>_<seq4>_<attempt, 6 digits>` (Hadoop `ApplicationAttemptId`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ApplicationAttemptId {
    pub application_id: ApplicationId,
    pub attempt_id: u32,
}

/// `container_[e<epoch>_]<ts>_<seq4>_<attempt, 2 digits>_<n, 6 digits>` (Hadoop `ContainerId`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ContainerId {
    pub attempt: ApplicationAttemptId,
    /// RM restart epoch; 0 prints no `e..` part.
    pub epoch: u32,
    pub id: u64,
}

/// A NodeManager's `host:port` (Hadoop `NodeId`).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct NodeId {
    pub host: String,
    pub port: u16,
}

/// Spark's executor id: a decimal string on YARN, handed out by the AM's counter from 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ExecutorId(pub u32);

/// Spark's task id (`TID`), unique per SparkContext.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct TaskId(pub u64);

impl ApplicationAttemptId {
    pub fn new(application_id: ApplicationId, attempt_id: u32) -> Self {
        ApplicationAttemptId {
            application_id,
            attempt_id,
        }
    }
}

impl ContainerId {
    pub fn new(attempt: ApplicationAttemptId, id: u64) -> Self {
        ContainerId {
            attempt,
            epoch: 0,
            id,
        }
    }
}

impl fmt::Display for ApplicationId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "application_{}_{:04}", self.cluster_timestamp, self.id)
    }
}

impl fmt::Display for ApplicationAttemptId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let app = self.application_id;
        write!(
            f,
            "appattempt_{}_{:04}_{:06}",
            app.cluster_timestamp, app.id, self.attempt_id
        )
    }
}

impl fmt::Display for ContainerId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let app = self.attempt.application_id;
        f.write_str("container_")?;
        if self.epoch > 0 {
            write!(f, "e{:02}_", self.epoch)?;
        }
        write!(
            f,
            "{}_{:04}_{:02}_{:06}",
            app.cluster_timestamp, app.id, self.attempt.attempt_id, self.id
        )
    }
}

impl fmt::Display for NodeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.host, self.port)
    }
}

impl fmt::Display for ExecutorId {
    /// The number as `{}` prints it, without `core::fmt`'s padding (a task line shows one).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(crate::jvm_text::Decimal::new(u64::from(self.0)).as_str())
    }
}

impl fmt::Display for TaskId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(crate::jvm_text::Decimal::new(self.0).as_str())
    }
}

/// Why an id string did not parse; the text names the input as Hadoop's parsers do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdParseError(pub String);

impl fmt::Display for IdParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

fn number<T: FromStr>(part: Option<&str>, input: &str, what: &str) -> Result<T, IdParseError> {
    part.and_then(|p| p.parse().ok())
        .ok_or_else(|| IdParseError(format!("Invalid {what}: {input}")))
}

impl FromStr for ApplicationId {
    type Err = IdParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let mut parts = s.split('_');
        if parts.next() != Some("application") {
            return Err(IdParseError(format!("Invalid ApplicationId prefix: {s}")));
        }
        let cluster_timestamp = number(parts.next(), s, "ApplicationId")?;
        let id = number(parts.next(), s, "ApplicationId")?;
        if parts.next().is_some() {
            return Err(IdParseError(format!("Invalid ApplicationId: {s}")));
        }
        Ok(ApplicationId {
            cluster_timestamp,
            id,
        })
    }
}

impl FromStr for ContainerId {
    type Err = IdParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let rest = s
            .strip_prefix("container_")
            .ok_or_else(|| IdParseError(format!("Invalid ContainerId prefix: {s}")))?;
        let mut parts: Vec<&str> = rest.split('_').collect();
        let mut epoch = 0;
        if parts.first().is_some_and(|p| p.starts_with('e')) {
            epoch = number(parts.first().map(|p| &p[1..]), s, "ContainerId")?;
            parts.remove(0);
        }
        if parts.len() != 4 {
            return Err(IdParseError(format!("Invalid ContainerId: {s}")));
        }
        let application_id = ApplicationId {
            cluster_timestamp: number(Some(parts[0]), s, "ContainerId")?,
            id: number(Some(parts[1]), s, "ContainerId")?,
        };
        let attempt =
            ApplicationAttemptId::new(application_id, number(Some(parts[2]), s, "ContainerId")?);
        Ok(ContainerId {
            attempt,
            epoch,
            id: number(Some(parts[3]), s, "ContainerId")?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn app() -> ApplicationId {
        ApplicationId {
            cluster_timestamp: 1741617430753,
            id: 4,
        }
    }

    #[test]
    fn string_forms_match_hadoop() {
        let attempt = ApplicationAttemptId::new(app(), 2);
        assert_eq!(app().to_string(), "application_1741617430753_0004");
        assert_eq!(attempt.to_string(), "appattempt_1741617430753_0004_000002");
        assert_eq!(
            ContainerId::new(attempt, 1).to_string(),
            "container_1741617430753_0004_02_000001"
        );
        let with_epoch = ContainerId {
            attempt,
            epoch: 9,
            id: 1,
        };
        assert_eq!(
            with_epoch.to_string(),
            "container_e09_1741617430753_0004_02_000001"
        );
    }

    #[test]
    fn sequence_grows_past_four_digits() {
        let big = ApplicationId {
            cluster_timestamp: 1,
            id: 10000,
        };
        assert_eq!(big.to_string(), "application_1_10000");
        let attempt = ApplicationAttemptId::new(app(), 1);
        assert_eq!(
            ContainerId::new(attempt, 1234567).to_string(),
            "container_1741617430753_0004_01_1234567"
        );
    }

    #[test]
    fn ids_parse_back() {
        let attempt = ApplicationAttemptId::new(app(), 2);
        let c = ContainerId {
            attempt,
            epoch: 9,
            id: 17,
        };
        assert_eq!(c.to_string().parse::<ContainerId>(), Ok(c));
        assert_eq!(app().to_string().parse::<ApplicationId>(), Ok(app()));
        assert!("application_x_1".parse::<ApplicationId>().is_err());
        assert!("container_1_2_3".parse::<ContainerId>().is_err());
    }
}
