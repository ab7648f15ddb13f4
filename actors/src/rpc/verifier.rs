//! `endpoint-verifier`, registered in every Spark server RpcEnv: answers whether an endpoint
//! name exists, which is how `setupEndpointRefByURI` looks a remote endpoint up.

use super::RpcEnv;
use actix::{Actor, Context};
use sparkyard_messages::endpoint_verifier::EndpointVerifierMsg;

/// Spark `RpcEndpointVerifier`.
pub struct RpcEndpointVerifier {
    env: RpcEnv,
}

/// The name Spark registers it under.
pub const NAME: &str = "endpoint-verifier";

impl RpcEndpointVerifier {
    /// Starts the verifier in `env`.
    pub fn start(env: &RpcEnv) {
        let env2 = env.clone();
        RpcEndpointVerifier::create(move |ctx| {
            let mut env2 = env2;
            env2.setup_endpoint::<_, EndpointVerifierMsg>(
                NAME,
                &actix::AsyncContext::address(ctx),
                None,
            );
            RpcEndpointVerifier { env: env2 }
        });
    }

    fn on_message(&mut self, msg: EndpointVerifierMsg, _ctx: &mut Context<Self>) {
        let EndpointVerifierMsg::CheckExistence(ask, name) = msg;
        let exists = self
            .env
            .dispatcher
            .lookup_id(self.env.process, &name)
            .is_some();
        self.env.reply(ask, exists);
    }
}

impl Actor for RpcEndpointVerifier {
    type Context = Context<Self>;
}

crate::endpoint!(RpcEndpointVerifier {
    messages: EndpointVerifierMsg => on_message,
});
