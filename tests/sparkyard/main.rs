//! sparkyard's one integration-test binary: whole submissions through the library and the CLI.

mod abort_timer_stop;
mod application_master;
mod arrivals;
mod bundled_seeds;
mod cli;
mod common;
mod docker_stop;
mod fault_families;
mod fault_kinds;
mod gpu_resources;
mod hardening;
mod issue30_audit;
mod lifecycle;
mod localization;
mod outputs;
mod replay;
mod replay_cluster;
mod replay_gpus;
mod scenarios;
mod toolkit;
mod whatif;
mod whatif_cluster;
mod yarn_gpus;
