//! Actor timers that cost nothing while they wait: drop-in equivalents of actix's `run_later`,
//! `notify_later` and `run_interval` (`TimerFunc`, `ActorDelayedMessageItem`, `IntervalFunc`).
//!
//! actix polls every item of an actor's context each time the actor wakes, and polling a tokio
//! `Sleep` re-registers the task's waker (a clone and a drop) even when it is far from due. An
//! actor holding many timers (the Client's and the allocator's answered asks keep their timeout
//! timers until they expire) paid that on every message. These items poll their `Sleep` only when
//! the poll could change something: the first time (which registers the timer and the waker),
//! after a reset, once the timer has fired, or when the task's coop budget is spent (where
//! tokio's own poll would yield). Otherwise a poll of the `Sleep` is known to return `Pending`
//! with the same waker already registered, so skipping it changes nothing: each item is spawned
//! as actix spawns its own (same position among the context's items, same handle), fires in the
//! same poll, and runs its closure or handler the same way. An answered ask does cancel its
//! timeout (`rpc::ask`, as Spark cancels the timeout future): actix then removes the item with
//! `swap_remove`, which can change which of two timers of that actor due at the same instant
//! runs first. It stays deterministic; on the bundled scenarios the outputs did not change.

use actix::dev::MessageResponse;
use actix::{Actor, ActorContext, ActorFuture, ActorState, AsyncContext, Handler, Message};
use actix::{Context, SpawnHandle};
use pin_project_lite::pin_project;
use std::marker::PhantomData;
use std::pin::Pin;
use std::task::{self, Poll, ready};
use std::time::Duration;
use tokio::time::Sleep;

pin_project! {
    /// A `Sleep` polled only when polling it could return something new.
    struct Wait {
        #[pin]
        sleep: Sleep,
        // A real poll returned Pending with budget to spare: the timer is in the wheel and the
        // task's waker is registered on it.
        armed: bool,
    }
}

impl Wait {
    fn new(after: Duration) -> Self {
        Wait {
            sleep: tokio::time::sleep(after),
            armed: false,
        }
    }

    fn poll(self: Pin<&mut Self>, cx: &mut task::Context<'_>) -> Poll<()> {
        let mut this = self.project();
        let budget = tokio::task::coop::has_budget_remaining();
        if *this.armed && budget && !this.sleep.is_elapsed() {
            return Poll::Pending;
        }
        let r = this.sleep.as_mut().poll(cx);
        // Without budget, tokio's poll yields before it reaches the timer: nothing registered.
        *this.armed = r.is_pending() && budget;
        r
    }

    /// `IntervalFunc`: the next tick is one interval after the last deadline.
    fn rearm(self: Pin<&mut Self>, interval: Duration) {
        let mut this = self.project();
        let next = this.sleep.deadline() + interval;
        this.sleep.as_mut().reset(next);
        *this.armed = false;
    }
}

pin_project! {
    /// `run_later`'s `TimerFunc`.
    struct Later<A, F> {
        #[pin]
        wait: Wait,
        f: Option<F>,
        _actor: PhantomData<fn(&mut A)>,
    }
}

impl<A, F> ActorFuture<A> for Later<A, F>
where
    A: Actor,
    F: FnOnce(&mut A, &mut A::Context),
{
    type Output = ();

    fn poll(
        self: Pin<&mut Self>,
        act: &mut A,
        ctx: &mut A::Context,
        task: &mut task::Context<'_>,
    ) -> Poll<()> {
        let this = self.project();
        ready!(this.wait.poll(task));
        let f = this.f.take().expect("timer polled after it fired");
        f(act, ctx);
        Poll::Ready(())
    }
}

pin_project! {
    /// `run_interval`'s `IntervalFunc` (finished into a future, as actix does).
    struct Every<A, F> {
        #[pin]
        wait: Wait,
        interval: Duration,
        f: F,
        _actor: PhantomData<fn(&mut A)>,
    }
}

impl<A, F> ActorFuture<A> for Every<A, F>
where
    A: Actor,
    F: FnMut(&mut A, &mut A::Context),
{
    type Output = ();

    fn poll(
        self: Pin<&mut Self>,
        act: &mut A,
        ctx: &mut A::Context,
        task: &mut task::Context<'_>,
    ) -> Poll<()> {
        let mut this = self.project();
        loop {
            ready!(this.wait.as_mut().poll(task));
            this.wait.as_mut().rearm(*this.interval);
            (this.f)(act, ctx);
        }
    }
}

/// `ctx.run_later(after, f)`.
pub fn run_later<A, F>(ctx: &mut Context<A>, after: Duration, f: F) -> SpawnHandle
where
    A: Actor<Context = Context<A>>,
    F: FnOnce(&mut A, &mut Context<A>) + 'static,
{
    ctx.spawn(Later {
        wait: Wait::new(after),
        f: Some(f),
        _actor: PhantomData,
    })
}

/// `ctx.notify_later(msg, after)`.
pub fn notify_later<A, M>(ctx: &mut Context<A>, msg: M, after: Duration) -> SpawnHandle
where
    A: Actor<Context = Context<A>> + Handler<M>,
    M: Message + 'static,
{
    notify_later_with(ctx, after, move || msg)
}

/// `notify_later` with the message built when the timer fires: the timer holds what `make`
/// captures (an id, or nothing) instead of the whole message, which for a large message enum
/// held by every executor's timers is most of the item.
pub fn notify_later_with<A, M>(
    ctx: &mut Context<A>,
    after: Duration,
    make: impl FnOnce() -> M + 'static,
) -> SpawnHandle
where
    A: Actor<Context = Context<A>> + Handler<M>,
    M: Message + 'static,
{
    if ctx.state() == ActorState::Stopped {
        log::error!(target: "actix::actor", "Context::notify_later called for stopped actor.");
        return SpawnHandle::default();
    }
    // actix's `ActorDelayedMessageItem`: the message goes to the handler, not the mailbox.
    run_later(ctx, after, move |act: &mut A, ctx| {
        <A as Handler<M>>::handle(act, make(), ctx).handle(ctx, None);
    })
}

/// `ctx.run_interval(every, f)`: first after one interval.
pub fn run_interval<A, F>(ctx: &mut Context<A>, every: Duration, f: F) -> SpawnHandle
where
    A: Actor<Context = Context<A>>,
    F: FnMut(&mut A, &mut Context<A>) + 'static,
{
    ctx.spawn(Every {
        wait: Wait::new(every),
        interval: every,
        f,
        _actor: PhantomData,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;
    use std::rc::Rc;

    type Log = Rc<RefCell<Vec<(u64, String)>>>;

    #[derive(Message)]
    #[rtype(result = "()")]
    struct Tick(&'static str);

    struct Clockwork {
        log: Log,
        lazy: bool,
    }

    impl Clockwork {
        fn note(&self, what: String) {
            self.log
                .borrow_mut()
                .push((crate::kernel::clock::now_ms(), what));
        }
    }

    impl Handler<Tick> for Clockwork {
        type Result = ();
        fn handle(&mut self, t: Tick, _: &mut Context<Self>) {
            self.note(format!("msg {}", t.0));
        }
    }

    impl Actor for Clockwork {
        type Context = Context<Self>;
        fn started(&mut self, ctx: &mut Context<Self>) {
            let ms = crate::kernel::clock::ms;
            // Timers due at the same instants, some cancelled, an interval and a stop: the same
            // schedule with actix's items and with these must give the same log.
            for i in 0..40u64 {
                let d = ms(i % 7 * 10 + 10);
                let h = if self.lazy {
                    run_later(ctx, d, move |a: &mut Self, _| a.note(format!("later {i}")))
                } else {
                    ctx.run_later(d, move |a, _| a.note(format!("later {i}")))
                };
                if i % 5 == 0 {
                    ctx.cancel_future(h);
                }
                let name: &'static str = ["a", "b", "c"][i as usize % 3];
                if self.lazy {
                    notify_later(ctx, Tick(name), ms(i % 4 * 10 + 5));
                } else {
                    ctx.notify_later(Tick(name), ms(i % 4 * 10 + 5));
                }
            }
            let every = |a: &mut Self, _: &mut Context<Self>| a.note("every".into());
            if self.lazy {
                run_interval(ctx, ms(20), every);
            } else {
                ctx.run_interval(ms(20), every);
            }
            let stop = |a: &mut Self, ctx: &mut Context<Self>| {
                a.note("stop".into());
                ctx.stop();
                actix::System::current().stop();
            };
            if self.lazy {
                run_later(ctx, ms(95), stop);
            } else {
                ctx.run_later(ms(95), stop);
            }
        }
    }

    fn schedule(lazy: bool) -> Vec<(u64, String)> {
        let log: Log = Rc::default();
        let rt = crate::kernel::clock::paused_runtime().expect("runtime");
        let system = actix::System::with_tokio_rt(move || rt);
        let l = log.clone();
        system.block_on(async move {
            crate::kernel::clock::start(0);
            Clockwork { log: l, lazy }.start();
        });
        system.run().expect("runs");
        log.borrow().clone()
    }

    #[test]
    fn lazy_timers_fire_like_actix_timers() {
        let actix_order = schedule(false);
        assert!(actix_order.len() > 60, "{actix_order:?}");
        assert_eq!(schedule(true), actix_order);
    }
}
