//! Links the `read-window` executable position-dependent on Linux (glibc). The component it embeds comes from
//! the `read-window-wasm` crate.

use std::env;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    // `read-window` runs once per call when an agent shells out to it, so its start-up counts. Linked as a
    // position-dependent executable it needs no relative relocations at start (a PIE build has about 34,000, each
    // a write that faults in a page of the 30 MB binary: 0.9 ms of a 4.4 ms one-shot read, docs/benchmarks.md).
    // The code stays position-independent; only the executable's own load address is fixed (no ASLR for it). The
    // library, the tests and the other binaries keep the default.
    if env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux")
        && env::var("CARGO_CFG_TARGET_ENV").as_deref() == Ok("gnu")
    {
        println!("cargo:rustc-link-arg-bin=read-window=-no-pie");
    }
}
