//! Every message variant of every receiver survives a bincode 2 (serde) round trip, so a real
//! wire transport can replace the in-process Dispatcher without touching the protocol.

use crate::application_master::*;
use crate::client::ClientMsg;
use crate::driver::DriverMsg;
use crate::driver_endpoint::*;
use crate::endpoint_verifier::EndpointVerifierMsg;
use crate::executor::*;
use crate::executor_runnable::ExecutorRunnableMsg;
use crate::ids::*;
use crate::listener::ResourceInformation;
use crate::node_manager::*;
use crate::records::*;
use crate::resource_manager::*;
use crate::rpc::*;
use crate::task::*;
use crate::yarn_allocator::YarnAllocatorMsg;
use crate::yarn_scheduler::YarnSchedulerMsg;
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::fmt::Debug;

fn roundtrip<T: Serialize + DeserializeOwned + PartialEq + Debug>(value: T) {
    let cfg = bincode::config::standard();
    let bytes = bincode::serde::encode_to_vec(&value, cfg).expect("encodes");
    let (back, used): (T, usize) = bincode::serde::decode_from_slice(&bytes, cfg).expect("decodes");
    assert_eq!(used, bytes.len());
    assert_eq!(back, value);
}

fn app() -> ApplicationId {
    ApplicationId {
        cluster_timestamp: 1_764_662_400_000,
        id: 1,
    }
}
fn attempt() -> ApplicationAttemptId {
    ApplicationAttemptId::new(app(), 1)
}
fn cid() -> ContainerId {
    ContainerId::new(attempt(), 2)
}
fn ask<R>() -> ReplyTo<R> {
    ReplyTo::new(AskContext {
        ask_id: 7,
        reply_to: EndpointId(3),
    })
}
fn addr() -> RpcAddress {
    RpcAddress {
        host: "nm-1".into(),
        port: 40000,
    }
}
fn rref() -> RemoteRef {
    RemoteRef {
        id: EndpointId(4),
        address: RpcEndpointAddress {
            rpc_address: Some(addr()),
            name: "YarnAM".into(),
        },
    }
}
fn resource() -> Resource {
    Resource {
        memory_mb: 2048,
        vcores: 1,
        gpus: 0,
    }
}
fn container() -> Container {
    let node_id = NodeId {
        host: "nm-1".into(),
        port: 8041,
    };
    Container {
        id: cid(),
        node_id,
        node_http_address: "nm-1:8042".into(),
        rack: "/r".into(),
        resource: resource(),
        priority: 0,
    }
}
fn status() -> ContainerStatus {
    ContainerStatus {
        container_id: cid(),
        state: ContainerState::Complete,
        exit_status: exit_status::KILLED_EXCEEDED_PMEM,
        diagnostics: "d".into(),
    }
}
fn args() -> ExecutorArguments {
    ExecutorArguments {
        driver_url: "spark://CoarseGrainedScheduler@nm-1:40000".into(),
        executor_id: ExecutorId(1),
        hostname: "nm-2".into(),
        cores: 1,
        app_id: app().to_string().into(),
        resource_profile_id: 0,
        container_id: Some(cid()),
    }
}
fn launch_context() -> ContainerLaunchContext {
    ContainerLaunchContext {
        commands: vec!["java".into()],
        environment: vec![("A".into(), "b".into())],
        main: ContainerMain::Executor(args()),
        local_resources: vec![LocalResource {
            link: "__app__.jar".into(),
            source: "hdfs://nn:8020/user/spark/.sparkStaging/app/app.jar".into(),
            archive: false,
        }]
        .into(),
    }
}
fn report() -> ApplicationReport {
    ApplicationReport {
        application_id: app(),
        current_attempt: Some(attempt()),
        user: "spark".into(),
        queue: "default".into(),
        name: "Spark Pi".into(),
        host: None,
        rpc_port: -1,
        client_token: None,
        state: YarnApplicationState::Accepted,
        diagnostics: String::new(),
        tracking_url: None,
        original_tracking_url: "N/A".into(),
        start_time: 1,
        finish_time: 0,
        final_status: FinalApplicationStatus::Undefined,
        application_type: "SPARK".into(),
        application_tags: vec!["etl".into()],
        priority: 0,
    }
}
fn reply() -> AskReply {
    AskReply {
        ask_id: 7,
        result: Ok(ReplyValue::Bool(true)),
    }
}
fn request_executors() -> RequestExecutors {
    RequestExecutors {
        resource_profile_to_total_execs: vec![(0, 4)],
        num_locality_aware_tasks_per_resource_profile_id: vec![],
        excluded_nodes: vec!["nm-3".into()],
        host_to_local_task_count: vec![(0, vec![("nm-1".into(), 3)])],
    }
}
fn task() -> TaskDescription {
    TaskDescription {
        task_id: TaskId(9),
        attempt_number: 0,
        executor_id: ExecutorId(1),
        index: 0,
        partition_id: 0,
        stage_id: 0,
        stage_attempt_id: 0,
        cpus: 1,
        work: TaskWork::SparkPiDarts {
            first: 1,
            darts: 100_000,
            seed: 42,
        },
        shuffle: ShuffleIo::default(),
        task_binary: 0,
        input_split: None,
        epoch: 0,
        result_bytes: 1000,
    }
}

#[test]
fn a_task_is_named_as_spark_names_it() {
    assert_eq!(task().name().to_string(), "task 0.0 in stage 0.0");
    let retried = TaskDescription {
        index: 17,
        attempt_number: 2,
        stage_id: 3,
        stage_attempt_id: 1,
        ..task()
    };
    assert_eq!(retried.name().to_string(), "task 17.2 in stage 3.1");
}

#[test]
fn every_reply_value_round_trips() {
    let cfg = SparkAppConfig {
        spark_properties: vec![("spark.app.id".into(), "a".into())].into(),
        io_encryption_key: Some(vec![1]),
        hadoop_delegation_creds: None,
        resource_profile_id: 0,
        log_level: Some("INFO".into()),
    };
    let alloc = AllocateResponse {
        response_id: 1,
        allocated_containers: vec![container()],
        completed_containers: vec![status()],
        num_cluster_nodes: 8,
        updated_nodes: vec![crate::rpc::NodeReport {
            host: "nm-1".into(),
            state: crate::rpc::NodeState::Decommissioning,
        }],
    };
    for v in [
        ReplyValue::Unit,
        ReplyValue::Bool(false),
        ReplyValue::Int(-3),
        ReplyValue::SparkAppConfig(cfg),
        ReplyValue::ClusterMetrics(GetClusterMetricsResponse {
            num_node_managers: 8,
        }),
        ReplyValue::NewApplication(GetNewApplicationResponse {
            application_id: app(),
            maximum_capability: resource(),
        }),
        ReplyValue::Report(Box::new(report())),
        ReplyValue::RegisteredApplicationMaster(RegisterApplicationMasterResponse {
            maximum_capability: resource(),
            queue: "q".into(),
        }),
        ReplyValue::Allocate(alloc),
        ReplyValue::FinishedApplicationMaster(FinishApplicationMasterResponse {
            is_unregistered: true,
        }),
        ReplyValue::StartContainers(StartContainersResponse {
            succeeded: vec![cid()],
            failed: vec![FailedContainer {
                container_id: cid(),
                error: "e".into(),
            }],
        }),
        ReplyValue::LossReason(ExecutorLossReason::Killed),
        ReplyValue::Heartbeat(HeartbeatResponse {
            reregister_block_manager: true,
        }),
    ] {
        roundtrip(AskReply {
            ask_id: 1,
            result: Ok(v),
        });
    }
    roundtrip(AskReply {
        ask_id: 2,
        result: Err(RpcFailure::spark("Could not find X.")),
    });
}

/// A typed reply context is an `AskContext` on the wire, and copies as one.
#[test]
fn a_typed_reply_context_is_an_ask_context_on_the_wire() {
    let cfg = bincode::config::standard();
    let typed: ReplyTo<AllocateResponse> = ask();
    let copy = typed;
    assert_eq!(copy, typed);
    let plain = bincode::serde::encode_to_vec(typed.context(), cfg).expect("encodes");
    let bytes = bincode::serde::encode_to_vec(typed, cfg).expect("encodes");
    assert_eq!(bytes, plain);
    roundtrip(typed);
    assert_eq!(format!("{typed:?}"), format!("{:?}", typed.context()));
}

/// A reply comes back out of the envelope as the type that went in, and only as that type.
#[test]
fn a_reply_decodes_only_to_its_own_type() {
    assert_eq!(bool::from_value(true.into_value()), Ok(true));
    assert_eq!(
        <()>::from_value(ReplyValue::Bool(true)),
        Err(ReplyValue::Bool(true))
    );
    assert_eq!(ReplyValue::Bool(true).class(), "java.lang.Boolean");
    assert_eq!(ReplyValue::Unit.class(), "scala.runtime.BoxedUnit");
}

#[test]
fn yarn_messages_round_trip() {
    let sub = ApplicationSubmissionContext {
        application_id: app(),
        application_name: "n".into(),
        queue: "q".into(),
        application_type: "SPARK".into(),
        max_app_attempts: Some(2),
        application_tags: vec!["etl".into()],
        priority: Some(3),
        attempt_failures_validity_interval_ms: Some(60_000),
        am_resource: resource(),
        am_node_label_expression: Some("gpu".into()),
        am_container_spec: launch_context(),
        user: "spark".into(),
    };
    for m in [
        ResourceManagerMsg::GetClusterMetrics(ask()),
        ResourceManagerMsg::GetNewApplication(ask()),
        ResourceManagerMsg::SubmitApplication(ask(), Box::new(sub)),
        ResourceManagerMsg::GetApplicationReport(ask(), app()),
        ResourceManagerMsg::RegisterApplicationMaster(
            ask(),
            RegisterApplicationMasterRequest {
                attempt_id: attempt(),
                host: "h".into(),
                rpc_port: 1,
                tracking_url: "u".into(),
            },
        ),
        ResourceManagerMsg::Allocate(
            ask(),
            AllocateRequest {
                attempt_id: attempt(),
                response_id: 1,
                progress_permille: 100,
                priority: 0,
                capability: resource(),
                add_requests: 2,
                remove_requests: 0,
                releases: vec![cid()],
                blacklist_additions: vec!["h".into()],
                blacklist_removals: vec![],
                node_label_expression: None,
                locality_asks: vec![crate::resource_manager::LocalityAsk {
                    resource_name: crate::resource_manager::ResourceName::Rack("/r1".into()),
                    num_containers: 1,
                }],
            },
        ),
        ResourceManagerMsg::FinishApplicationMaster(
            ask(),
            FinishApplicationMasterRequest {
                attempt_id: attempt(),
                final_status: FinalApplicationStatus::Succeeded,
                diagnostics: String::new(),
                tracking_url: String::new(),
            },
        ),
        ResourceManagerMsg::RegisterNodeManager(RegisterNodeManagerRequest {
            node_id: NodeId {
                host: "h".into(),
                port: 8041,
            },
            http_port: 8042,
            rack: "/r".into(),
            total_resource: resource(),
        }),
        ResourceManagerMsg::NodeHeartbeat(NodeHeartbeatRequest {
            node_id: NodeId {
                host: "h".into(),
                port: 8041,
            },
            response_id: 3,
            completed_containers: vec![status()],
            launched_containers: vec![status().container_id],
        }),
        ResourceManagerMsg::AskReply(reply()),
    ] {
        roundtrip(m);
    }
    for m in [
        NodeManagerMsg::StartContainers(
            ask(),
            Box::new(StartContainerRequest {
                container: container(),
                launch_context: launch_context(),
            }),
        ),
        NodeManagerMsg::NodeHeartbeatResponse(NodeHeartbeatResponse {
            response_id: 1,
            containers_to_cleanup: vec![cid()],
            applications_to_cleanup: vec![app()],
        }),
        NodeManagerMsg::ContainerProcessExited {
            container_id: cid(),
            exit_code: 143,
        },
        NodeManagerMsg::ContainerLaunched(cid()),
        NodeManagerMsg::StopContainer(cid()),
        NodeManagerMsg::KillContainer {
            container_id: cid(),
            exit_status: -104,
        },
    ] {
        roundtrip(m);
    }
    roundtrip(ClientMsg::AskReply(reply()));
}

#[test]
fn application_master_messages_round_trip() {
    let report = AllocatorReport {
        num_pending_allocate: 2,
        num_pending_loss_reason_requests: 0,
        stop: Some(ReporterStop::MaxExecutorFailures),
        rm_failure: Some(RpcFailure::spark("x")),
    };
    for m in [
        ApplicationMasterMsg::AskReply(reply()),
        ApplicationMasterMsg::SparkContextInitialized { driver: rref() },
        ApplicationMasterMsg::SparkContextNotCreated,
        ApplicationMasterMsg::Finish {
            status: FinalApplicationStatus::Failed,
            exit_code: 15,
            message: Some("m".into()),
        },
        ApplicationMasterMsg::AllocatorReport(report),
        ApplicationMasterMsg::DriverShutdown { exit_code: 0 },
        ApplicationMasterMsg::WakeReporter,
    ] {
        roundtrip(m);
    }
    for m in [
        YarnAmMsg::RequestExecutors(ask(), request_executors()),
        YarnAmMsg::KillExecutors(ask(), vec![ExecutorId(2)]),
        YarnAmMsg::GetExecutorLossReason(ask(), ExecutorId(2)),
        YarnAmMsg::Shutdown { exit_code: 0 },
    ] {
        roundtrip(m);
    }
    for m in [
        YarnAllocatorMsg::AllocateResources,
        YarnAllocatorMsg::ReporterPass {
            max_executor_failures: 3,
        },
        YarnAllocatorMsg::AskReply(reply()),
        YarnAllocatorMsg::RequestTotalExecutors(ask(), request_executors()),
        YarnAllocatorMsg::KillExecutors(ask(), vec![ExecutorId(1)]),
        YarnAllocatorMsg::GetExecutorLossReason(ask(), ExecutorId(1)),
        YarnAllocatorMsg::SetShutdown,
        YarnAllocatorMsg::ExecutorLaunched {
            executor_id: ExecutorId(1),
            container_id: cid(),
        },
        YarnAllocatorMsg::ExecutorLaunchFailed {
            executor_id: ExecutorId(1),
            container_id: cid(),
            error: "e".into(),
        },
    ] {
        roundtrip(m);
    }
    roundtrip(ExecutorRunnableMsg::AskReply(reply()));
}

#[test]
fn driver_and_executor_messages_round_trip() {
    let reg = RegisterExecutor {
        executor_id: ExecutorId(1),
        executor_ref: rref(),
        sender_address: addr(),
        hostname: "nm-2".into(),
        cores: 1,
        log_urls: vec![("stdout".into(), "u".into())],
        attributes: vec![],
        resources: vec![ResourceInformation {
            name: "gpu".into(),
            addresses: vec!["0".into()],
        }],
        resource_profile_id: 0,
    };
    let update = StatusUpdate {
        executor_id: ExecutorId(1),
        task_id: TaskId(9),
        state: TaskState::Finished,
        data: TaskResultData::Count(78_540),
        task_cpus: 1,
    };
    let job = JobSpec {
        call_site: "reduce at SparkPi.scala:38".into(),
        stages: vec![StageSpec {
            rdd_description: "r".into(),
            num_partitions: 1,
            parents: vec![],
            tasks: vec![TaskWork::Sleep {
                duration_ms: 5,
                fail: Some("boom".into()),
            }]
            .into(),
            shuffle_write: ShuffleWriteSize {
                bytes_per_task: 1 << 20,
                records_per_task: 1000,
                hot: Default::default(),
            },
            input: Default::default(),
            lineage: None,
            preferred_hosts: Vec::new(),
            input_path: None,
            result_bytes: Default::default(),
            barrier: false,
        }],
    };
    for m in [
        DriverEndpointMsg::RetrieveSparkAppConfig(ask(), 0),
        DriverEndpointMsg::RegisterExecutor(ask(), Box::new(reg)),
        DriverEndpointMsg::LaunchedExecutor(ExecutorId(1)),
        DriverEndpointMsg::StatusUpdate(update),
        DriverEndpointMsg::ReviveOffers,
        DriverEndpointMsg::KillTask {
            task_id: TaskId(1),
            executor_id: ExecutorId(1),
            interrupt_thread: true,
            reason: "r".into(),
        },
        DriverEndpointMsg::StopExecutors(ask()),
        DriverEndpointMsg::StopDriver(ask()),
        DriverEndpointMsg::RemoveExecutor {
            executor_id: ExecutorId(1),
            reason: ExecutorLossReason::Exited {
                exit_code: 52,
                exit_caused_by_app: true,
                reason: "r".into(),
            },
        },
        DriverEndpointMsg::IsExecutorAlive(ask(), ExecutorId(1)),
        DriverEndpointMsg::BlockManagerIsExecutorAlive(ask(), ExecutorId(1)),
        DriverEndpointMsg::SubmitJob {
            job: Box::new(job),
            waiter: Box::new(rref()),
            pool: Some("etl".into()),
        },
        DriverEndpointMsg::CancelJob {
            job_id: 3,
            reason: "part of cancelled job group g".into(),
        },
        DriverEndpointMsg::RemoteProcessDisconnected(addr()),
        DriverEndpointMsg::Heartbeat(ask(), ExecutorId(1)),
        DriverEndpointMsg::ReregisterBlockManager(
            ask(),
            BlockManagerId {
                executor_id: ExecutorId(1),
                host: "nm-1".into(),
                port: 38001,
            },
        ),
        DriverEndpointMsg::ExpireDeadHosts,
        DriverEndpointMsg::ExcludeNode("nm-3".into()),
        DriverEndpointMsg::CheckBackendReady { waiter: rref() },
    ] {
        roundtrip(m);
    }
    for m in [
        YarnSchedulerMsg::RegisterClusterManager(rref()),
        YarnSchedulerMsg::RetrieveLastAllocatedExecutorId(ask()),
        YarnSchedulerMsg::RequestExecutors(ask(), request_executors()),
        YarnSchedulerMsg::KillExecutors(ask(), vec![ExecutorId(1)]),
        YarnSchedulerMsg::RemoveExecutor {
            executor_id: ExecutorId(1),
            reason: ExecutorLossReason::ProcessLost {
                message: "Executor Process Lost".into(),
                caused_by_app: true,
            },
        },
        YarnSchedulerMsg::SignalDriverStop { exit_code: 0 },
        YarnSchedulerMsg::ExecutorDisconnected {
            executor_id: ExecutorId(1),
            address: "h:1".into(),
        },
        YarnSchedulerMsg::AskReply(reply()),
    ] {
        roundtrip(m);
    }
    for m in [
        ExecutorMsg::AskReply(Box::new(reply())),
        ExecutorMsg::RegisteredExecutor,
        ExecutorMsg::LaunchTask(Box::new(task())),
        ExecutorMsg::KillTask {
            task_id: TaskId(1),
            interrupt_thread: false,
            reason: "r".into(),
        },
        ExecutorMsg::StopExecutor,
        ExecutorMsg::Shutdown,
        ExecutorMsg::TaskDone(TaskId(1)),
        ExecutorMsg::FetchAttempt(TaskId(1)),
        ExecutorMsg::HeartbeatTick,
        ExecutorMsg::RemoteProcessDisconnected(addr()),
    ] {
        roundtrip(m);
    }
    roundtrip(ExecutorMainMsg::AskReply(reply()));
    roundtrip(EndpointVerifierMsg::CheckExistence(
        ask(),
        "CoarseGrainedScheduler".into(),
    ));
    for m in [
        DriverMsg::AskReply(reply()),
        DriverMsg::SparkContextCreated,
        DriverMsg::ResumeDriver,
        DriverMsg::BackendReady,
        DriverMsg::JobEnded {
            job_id: 0,
            result: JobResult::Failed("x".into()),
        },
    ] {
        roundtrip(m);
    }
    roundtrip(ExecutorLossReason::Pending);
    roundtrip(ExecutorLossReason::Other("bye".into()));
    let bm = BlockManagerId {
        executor_id: ExecutorId(3),
        host: "nm-2".into(),
        port: 7337,
    };
    let mut reduce = task();
    reduce.shuffle = ShuffleIo {
        write: Some(ShuffleWrite {
            shuffle_id: 0,
            num_reduces: 4,
            bytes: 10,
            records: 2,
        }),
        read: Some(std::sync::Arc::new(ShuffleReadPlan {
            shuffle_id: 0,
            epoch: 3,
            sources: vec![FetchSource {
                location: bm.clone(),
                first_map_index: 1,
                first_map_id: 7,
                blocks: 2,
                non_empty_blocks: 2,
                non_empty_bytes: 5,
            }],
            missing_map: Some(0),
            bytes_per_reduce: 5,
        })),
    };
    roundtrip(reduce);
    roundtrip(JobResult::Succeeded(vec![
        TaskResultData::MapStatus(Box::new(MapStatusData {
            location: bm.clone(),
            bytes: 1,
            num_reduces: 2,
        })),
        TaskResultData::FetchFailed(Box::new(FetchFailure {
            bm_address: Some(bm),
            shuffle_id: 0,
            map_id: 7,
            map_index: 1,
            reduce_id: 2,
            message: "m".into(),
        })),
        TaskResultData::None,
        TaskResultData::Exception {
            class: "c".into(),
            description: "d".into(),
        },
    ]));
}

/// TaskEndReason.scala FetchFailed.toErrorString and BlockManagerId.toString, as a real Spark
/// run prints a metadata failure: `FetchFailed(null, shuffleId=171, mapIndex=-1, mapId=-1,
/// reduceId=0, message=\norg.apache.spark.shuffle.MetadataFetchFailedException: ...`.
#[test]
fn fetch_failed_prints_as_spark() {
    let metadata = FetchFailure {
        bm_address: None,
        shuffle_id: 171,
        map_id: -1,
        map_index: -1,
        reduce_id: 0,
        message: "org.apache.spark.shuffle.MetadataFetchFailedException: Missing an output location for shuffle 171 partition 0".into(),
    };
    assert_eq!(
        metadata.to_error_string(),
        "FetchFailed(null, shuffleId=171, mapIndex=-1, mapId=-1, reduceId=0, message=\norg.apache.spark.shuffle.MetadataFetchFailedException: Missing an output location for shuffle 171 partition 0\n)"
    );
    let remote = FetchFailure {
        bm_address: Some(BlockManagerId {
            executor_id: ExecutorId(2),
            host: "nm-6".into(),
            port: 38002,
        }),
        map_id: 5,
        map_index: 3,
        ..metadata
    };
    assert!(
        remote
            .to_error_string()
            .starts_with("FetchFailed(BlockManagerId(2, nm-6, 38002, None), shuffleId=171, mapIndex=3, mapId=5, reduceId=0, message=\n")
    );
}

/// The per-task inboxes' messages stay small: every message of an actor's inbox is as large as
/// the enum's largest variant and is moved (boxed into actix's envelope) on each send, three
/// sends per task. A rare, large variant goes behind a `Box` (SubmitJob's job and waiter,
/// the executor's AskReply) so a StatusUpdate, LaunchTask or TaskDone does not pay for it.
#[test]
fn the_per_task_messages_stay_small() {
    use std::mem::size_of;
    let status = size_of::<crate::task::StatusUpdate>();
    assert!(
        size_of::<DriverEndpointMsg>() <= status + 8,
        "DriverEndpointMsg is {} bytes, its StatusUpdate {status}",
        size_of::<DriverEndpointMsg>()
    );
    assert!(
        size_of::<ExecutorMsg>() <= 64,
        "ExecutorMsg is {} bytes",
        size_of::<ExecutorMsg>()
    );
}

/// A stage of equal tasks travels as the list of its partitions' works, as one of separate works
/// does, and reads back equal to it.
#[test]
fn a_stage_of_equal_tasks_travels_as_its_list_of_works() {
    let work = TaskWork::Sleep {
        duration_ms: 7,
        fail: None,
    };
    let same = StageTasks::same(work.clone(), 3);
    let each = StageTasks::from(vec![work.clone(); 3]);
    assert_eq!(same, each);
    assert_ne!(same, StageTasks::same(work.clone(), 2));
    let cfg = bincode::config::standard();
    let bytes = bincode::serde::encode_to_vec(&same, cfg).expect("encodes");
    assert_eq!(
        bytes,
        bincode::serde::encode_to_vec(&each, cfg).expect("encodes")
    );
    roundtrip(same.clone());
    assert_eq!(same.len(), 3);
    assert_eq!(same.get(2), Some(&work));
    assert_eq!(same.get(3), None);
    let mut changed = same;
    changed.to_mut()[1] = TaskWork::Sleep {
        duration_ms: 9,
        fail: None,
    };
    assert_eq!(changed.iter().filter(|w| **w == work).count(), 2);
}
