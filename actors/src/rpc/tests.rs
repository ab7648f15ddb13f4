//! Unit tests of the Inbox and Dispatcher rules, each on a paused System with probe endpoints.

use super::network::FaultInjector;
use super::*;
use crate::kernel::clock;
use crate::kernel::logs::LogStore;
use crate::kernel::trace::{DropReason, Trace, TraceKind};
use actix::{Actor, AsyncContext, Context, System};
use sparkyard_messages::records::RpcFailure;
use sparkyard_messages::rpc::{AskContext, AskReply, EndpointId, ReplyTo, ReplyValue, RpcAddress};
use std::cell::RefCell;
use std::rc::Rc;

type Log = Rc<RefCell<Vec<String>>>;

#[derive(actix::Message, strum::IntoStaticStr, Debug, Clone)]
#[rtype(result = "()")]
enum ProbeMsg {
    Note(String),
    Ask(ReplyTo<()>),
    AskReply(AskReply),
    AskTo(EndpointRef<ProbeMsg>, u32),
}

struct Probe {
    env: RpcEnv,
    me: EndpointId,
    log: Log,
    asks: AskTable<ProbeAnswer>,
}

/// Which of the probe's asks was answered, and how.
struct ProbeAnswer(u32, Result<(), RpcFailure>);

impl Probe {
    fn start(env: &RpcEnv, name: &str, log: Log) -> EndpointRef<ProbeMsg> {
        let mut out = None;
        let mut env2 = env.clone();
        Probe::create(|ctx| {
            let r = env2.setup_endpoint(name, &ctx.address(), Some(ProbeMsg::AskReply));
            let me = r.id;
            out = Some(r);
            Probe {
                env: env2,
                me,
                log,
                asks: AskTable::default(),
            }
        });
        out.expect("create runs its closure")
    }

    fn on_message(&mut self, msg: ProbeMsg, ctx: &mut Context<Self>) {
        match msg {
            ProbeMsg::Note(n) => self.log.borrow_mut().push(n),
            ProbeMsg::Ask(a) => self
                .log
                .borrow_mut()
                .push(format!("asked {}", a.context().ask_id)),
            ProbeMsg::AskReply(r) => self.on_ask_reply(r, ctx),
            ProbeMsg::AskTo(target, n) => {
                let t = AskTimeout::new(120_000, "spark.rpc.askTimeout");
                let me = self.me;
                self.ask(
                    ctx,
                    me,
                    &target,
                    move |r| ProbeAnswer(n, r),
                    &t,
                    ProbeMsg::Ask,
                );
            }
        }
    }
}

impl Actor for Probe {
    type Context = Context<Self>;
    fn started(&mut self, _ctx: &mut Context<Self>) {
        self.log.borrow_mut().push("OnStart".into());
    }
}

impl Probe {
    fn stopped(&mut self, _ctx: &mut Context<Self>) {
        self.log.borrow_mut().push("OnStop".into());
    }

    fn answered(&mut self, ProbeAnswer(what, result): ProbeAnswer, _ctx: &mut Context<Self>) {
        let text = match result {
            Ok(v) => format!("{what} ok {v:?}"),
            Err(e) => format!("{what} failed at {} ms: {e}", clock::now_ms()),
        };
        self.log.borrow_mut().push(text);
    }
}

crate::endpoint!(Probe {
    messages: ProbeMsg => on_message,
    answers: ProbeAnswer => answered,
    on_stop: stopped,
});

/// Every host of these tests at one address.
struct OneNetwork;

impl connection::ResolveHost for OneNetwork {
    fn ip(&self, _host: &str) -> String {
        "10.0.0.9".to_string()
    }
}

struct World {
    d: Dispatcher,
    a: RpcEnv,
    b: RpcEnv,
    logs: Rc<RefCell<LogStore>>,
}

/// Runs `body` inside a paused System with two processes, `a` and `b`, for 10 virtual minutes.
fn with_world(latency_ms: u64, body: impl FnOnce(&World) + 'static) -> Rc<RefCell<LogStore>> {
    let logs = Rc::new(RefCell::new(LogStore::new(true)));
    let logs2 = logs.clone();
    let sys = System::with_tokio_rt(|| clock::paused_runtime().expect("runtime"));
    sys.block_on(async move {
        clock::start(0);
        let d = Dispatcher::new(
            Trace::new(true),
            FaultInjector::new(1, Vec::new()),
            logs2.clone(),
            latency_ms,
            Rc::new(OneNetwork),
        );
        let pa = d.add_process(
            "a",
            RpcAddress {
                host: "ha".into(),
                port: 1,
            },
            ProcessKind::SparkServer,
            "a",
        );
        let pb = d.add_process(
            "b",
            RpcAddress {
                host: "hb".into(),
                port: 2,
            },
            ProcessKind::SparkServer,
            "b",
        );
        let w = World {
            a: RpcEnv::new(d.clone(), pa),
            b: RpcEnv::new(d.clone(), pb),
            d,
            logs: logs2,
        };
        body(&w);
        actix::spawn(async {
            tokio::time::sleep(clock::ms(600_000)).await;
            System::current().stop();
        });
    });
    sys.run().expect("system runs");
    logs
}

fn later(ms: u64, f: impl FnOnce() + 'static) {
    actix::spawn(async move {
        tokio::time::sleep(clock::ms(ms)).await;
        f();
    });
}

fn texts(log: &Log) -> Vec<String> {
    log.borrow().clone()
}

#[test]
fn on_start_runs_before_messages_posted_before_start() {
    let log: Log = Rc::default();
    let l = log.clone();
    with_world(0, move |w| {
        let p = Probe::start(&w.a, "probe", l);
        // Posted before the actor was ever polled: they must queue behind OnStart.
        w.b.send(&p, ProbeMsg::Note("m1".into()));
        w.b.send(&p, ProbeMsg::Note("m2".into()));
        w.a.send(&p, ProbeMsg::Note("m3".into()));
    });
    assert_eq!(texts(&log), ["OnStart", "m1", "m2", "m3"]);
}

#[test]
fn on_stop_is_last_and_later_posts_cannot_find_the_endpoint() {
    let log: Log = Rc::default();
    let (l, result) = (log.clone(), Rc::new(RefCell::new(None)));
    let r2 = result.clone();
    with_world(0, move |w| {
        let p = Probe::start(&w.a, "probe", l);
        w.b.send(&p, ProbeMsg::Note("m1".into()));
        w.b.send(&p, ProbeMsg::Note("m2".into()));
        w.a.stop_endpoint(p.id);
        w.a.stop_endpoint(p.id);
        *r2.borrow_mut() = Some(w.d.send(
            w.b.process.into(),
            &p,
            ProbeMsg::Note("late".into()),
            "Note",
        ));
    });
    assert_eq!(texts(&log), ["OnStart", "m1", "m2", "OnStop"]);
    let err = result
        .borrow()
        .clone()
        .expect("ran")
        .expect_err("post after stop fails");
    assert_eq!(
        err.to_string(),
        "org.apache.spark.SparkException: Could not find probe."
    );
}

#[test]
#[should_panic(expected = "There is already an RpcEndpoint called probe (in a)")]
fn a_duplicate_name_is_a_simulator_bug_with_spark_text() {
    with_world(0, move |w| {
        Probe::start(&w.a, "probe", Rc::default());
        Probe::start(&w.a, "probe", Rc::default());
    });
}

/// A send from a dead process goes nowhere: Spark's stopped RpcEnv refuses it
/// (`NettyRpcEnv.send` -> `RpcEnvStoppedException`), and the trace says the sender had died.
#[test]
fn a_send_from_a_dead_process_goes_nowhere() {
    let log: Log = Rc::default();
    let l = log.clone();
    let out = Rc::new(RefCell::new(Vec::new()));
    let o = out.clone();
    let drops = Rc::new(RefCell::new(Vec::new()));
    let dr = drops.clone();
    with_world(0, move |w| {
        let p = Probe::start(&w.a, "alive", l);
        w.b.exit(137);
        let r =
            w.d.send(w.b.process.into(), &p, ProbeMsg::Note("x".into()), "Note");
        o.borrow_mut().push(r.expect_err("refused").to_string());
        w.d.with_trace(|t| {
            for e in t.events() {
                if let TraceKind::Drop(why) = &e.kind {
                    dr.borrow_mut().push(why.clone());
                }
            }
        });
    });
    assert_eq!(
        *out.borrow(),
        ["org.apache.spark.rpc.RpcEnvStoppedException: RpcEnv already stopped."]
    );
    assert_eq!(*drops.borrow(), [DropReason::SenderDead]);
    assert_eq!(
        texts(&log),
        ["OnStart"],
        "nothing reached the live endpoint"
    );
}

#[test]
fn registering_in_a_dead_process_yields_a_reference_that_goes_nowhere() {
    let log: Log = Rc::default();
    let l = log.clone();
    let out = Rc::new(RefCell::new(Vec::new()));
    let o = out.clone();
    with_world(0, move |w| {
        w.b.exit(137);
        // An endpoint and a thread of the dead process: neither is an error for the caller.
        let p = Probe::start(&w.b, "other", l);
        let t = w.b.clone().setup_thread::<Probe, ProbeMsg>(
            "thread",
            &Probe::create(|_| Probe {
                env: w.b.clone(),
                me: EndpointId(u32::MAX),
                log: Rc::default(),
                asks: AskTable::default(),
            }),
            None,
        );
        assert!(w.d.lookup::<ProbeMsg>(w.b.process, "other").is_none());
        for to in [&p, &t] {
            let remote =
                w.d.send(w.a.process.into(), to, ProbeMsg::Note("x".into()), "Note");
            let local =
                w.d.send(w.b.process.into(), to, ProbeMsg::Note("x".into()), "Note");
            for r in [remote, local] {
                o.borrow_mut().push(r.expect_err("dropped").to_string());
            }
        }
        // The env's own send logs the failure and goes on.
        w.a.send(&p, ProbeMsg::Note("y".into()));
    });
    assert_eq!(
        *out.borrow(),
        [
            "java.io.IOException: Failed to connect to hb/10.0.0.9:2",
            "org.apache.spark.rpc.RpcEnvStoppedException: RpcEnv already stopped.",
            "java.io.IOException: Failed to connect to hb/10.0.0.9:2",
            "org.apache.spark.rpc.RpcEnvStoppedException: RpcEnv already stopped.",
        ]
    );
    // Its actor started, but no message reached it.
    assert_eq!(texts(&log), ["OnStart"]);
}

#[test]
fn posts_to_a_dead_process_fail_locally_and_remotely() {
    let out = Rc::new(RefCell::new(Vec::new()));
    let o = out.clone();
    with_world(0, move |w| {
        let p = Probe::start(&w.a, "probe", Rc::default());
        w.a.exit(137);
        let local =
            w.d.send(w.a.process.into(), &p, ProbeMsg::Note("x".into()), "Note")
                .expect_err("local");
        let remote =
            w.d.send(w.b.process.into(), &p, ProbeMsg::Note("x".into()), "Note")
                .expect_err("remote");
        o.borrow_mut().push(local.to_string());
        o.borrow_mut().push(remote.stack_text());
    });
    // The refusal's causes as Spark 4.0.0's TransportClientFactory throws them (a real
    // client's refused connection, NIO transport, Java 17).
    assert_eq!(
        *out.borrow(),
        [
            "org.apache.spark.rpc.RpcEnvStoppedException: RpcEnv already stopped.",
            "java.io.IOException: Failed to connect to ha/10.0.0.9:1\n\
             Caused by: io.netty.channel.AbstractChannel$AnnotatedConnectException: Connection refused: ha/10.0.0.9:1\n\
             Caused by: java.net.ConnectException: Connection refused"
        ]
    );
}

#[test]
fn an_unanswered_ask_times_out_after_the_virtual_timeout_with_spark_text() {
    let log: Log = Rc::default();
    let l = log.clone();
    let silent_log: Log = Rc::default();
    let sl = silent_log.clone();
    with_world(0, move |w| {
        let silent = Probe::start(&w.a, "silent", sl);
        let asker = Probe::start(&w.b, "asker", l);
        let b = w.b.clone();
        later(2, move || b.send(&asker, ProbeMsg::AskTo(silent, 7)));
    });
    let texts = texts(&log);
    assert_eq!(texts[0], "OnStart");
    assert_eq!(
        texts[1],
        "7 failed at 120002 ms: org.apache.spark.rpc.RpcTimeoutException: Cannot receive any reply from ha:1 in 120 seconds. This timeout is controlled by spark.rpc.askTimeout"
    );
    // Spark semantics: the receiver still handled the ask although nobody waits any more.
    assert_eq!(silent_log.borrow()[1], "asked 1");
}

/// A reply of another type than the ask waits for completes the ask with Spark's
/// `ClassCastException` (`ask[T]` is `Future.mapTo[T]`), neither a panic nor a silent drop.
#[test]
fn a_reply_of_the_wrong_type_fails_the_ask_with_a_class_cast_exception() {
    let log: Log = Rc::default();
    let l = log.clone();
    with_world(0, move |w| {
        let silent = Probe::start(&w.a, "silent", Rc::default());
        let asker = Probe::start(&w.b, "asker", l);
        let b = w.b.clone();
        let to = asker.id;
        later(2, move || b.send(&asker, ProbeMsg::AskTo(silent, 7)));
        let a = w.a.clone();
        later(5, move || {
            let ask = AskContext {
                ask_id: 1,
                reply_to: to,
            };
            a.dispatcher
                .reply(a.process.into(), ask, Ok(ReplyValue::Bool(true)))
        });
    });
    assert_eq!(
        texts(&log),
        [
            "OnStart",
            "7 failed at 5 ms: java.lang.ClassCastException: Cannot cast java.lang.Boolean to scala.runtime.BoxedUnit"
        ]
    );
}

#[test]
fn a_late_reply_is_ignored_with_a_warning() {
    let log: Log = Rc::default();
    let l = log.clone();
    let logs = with_world(0, move |w| {
        let p = Probe::start(&w.a, "probe", l);
        let a = w.a.clone();
        later(5, move || {
            a.dispatcher.reply(
                a.process.into(),
                AskContext {
                    ask_id: 99,
                    reply_to: p.id,
                },
                Ok(ReplyValue::Unit),
            )
        });
    });
    let store = logs.borrow();
    let stderr = &store.output("a").expect("probe logged").stderr;
    assert!(
        // NettyRpcEnv.askAbortable's onSuccess logs the reply's toString: BoxedUnit's is "()".
        stderr.contains("WARN NettyRpcEnv: Ignored message: ()\n"),
        "{stderr}"
    );
    assert_eq!(texts(&log), ["OnStart"]);
}

#[test]
fn a_message_in_flight_to_an_endpoint_stopped_meanwhile_is_dropped_and_logged() {
    let log: Log = Rc::default();
    let l = log.clone();
    let logs = with_world(5, move |w| {
        let p = Probe::start(&w.a, "probe", l);
        w.b.send(&p, ProbeMsg::Note("in flight".into()));
        w.a.stop_endpoint(p.id);
    });
    assert_eq!(texts(&log), ["OnStart", "OnStop"]);
    let store = logs.borrow();
    assert!(
        store
            .output("a")
            .expect("logged")
            .stderr
            .contains("WARN Inbox: Drop Note because endpoint probe is stopped")
    );
}

#[test]
fn a_killed_process_handles_nothing_more_and_gets_no_on_stop() {
    let log: Log = Rc::default();
    let l = log.clone();
    with_world(0, move |w| {
        let p = Probe::start(&w.a, "probe", l);
        let (a, b) = (w.a.clone(), w.b.clone());
        later(1, move || {
            b.send(&p, ProbeMsg::Note("queued".into()));
            a.exit(137);
        });
    });
    assert_eq!(texts(&log), ["OnStart"]);
}

/// A network delay rule that hits one message of five on a link (it is active only at 1 ms,
/// when m2 is sent): the link is one TCP connection, so the messages sent after m2 wait behind
/// it (head-of-line) instead of overtaking it.
#[test]
fn links_stay_fifo_when_a_message_is_delayed() {
    use super::network::{LinkRule, ProcessPattern, RuleAction};
    let log: Log = Rc::default();
    let l = log.clone();
    let seen = Rc::new(RefCell::new(Vec::new()));
    let s = seen.clone();
    with_world(3, move |w| {
        w.d.add_rule(LinkRule {
            from: ProcessPattern::Named("b".into()),
            to: ProcessPattern::Named("a".into()),
            message: None,
            active_from_ms: 1,
            active_until_ms: 2,
            action: RuleAction::Delay { ms: 50 },
            probability_ppm: 1_000_000,
            both_ways: false,
        });
        let p = Probe::start(&w.a, "probe", l.clone());
        let send = |at: u64, i: u32| {
            let (b, p) = (w.b.clone(), p.clone());
            later(at, move || b.send(&p, ProbeMsg::Note(format!("m{i}"))));
        };
        send(0, 0);
        send(0, 1);
        send(1, 2);
        send(2, 3);
        send(2, 4);
        // Without the delay m3 and m4 would arrive at 5 ms; they wait for m2 (due at 54 ms).
        for at in [10, 53, 55] {
            let (l, s) = (l.clone(), s.clone());
            later(at, move || s.borrow_mut().push((at, l.borrow().len() - 1)));
        }
    });
    assert_eq!(texts(&log), ["OnStart", "m0", "m1", "m2", "m3", "m4"]);
    assert_eq!(*seen.borrow(), [(10, 2), (53, 2), (55, 5)]);
}

#[test]
fn world_logs_are_per_process() {
    let logs = with_world(0, |w| {
        crate::info!(w.a.log(), "test::Probe", "hello");
        let _ = &w.logs;
    });
    assert!(
        logs.borrow()
            .output("a")
            .expect("a logged")
            .stderr
            .ends_with("INFO Probe: hello\n")
    );
}
