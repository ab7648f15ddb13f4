//! sparkyard's one integration-test binary: whole submissions through the library and the CLI.

mod cli;
mod common;
mod hardening;
mod lifecycle;
mod outputs;
mod scenarios;
