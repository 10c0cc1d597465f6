//! Builds the read-window component (the workspace root crate) for `wasm32-wasip2` and hands its path to the
//! host crate as `READ_WINDOW_WASM`; a copy of it goes to `$OUT_DIR/read_window.wasm` (embedded in the host) and
//! that copy's SHA-256 (64 lowercase hex digits) to `READ_WINDOW_WASM_SHA256`.
//!
//! The nested `cargo build` uses its own target directory (`<workspace>/target/component-build`): sharing the
//! outer build's directory would deadlock on its lock. Everything the outer cargo passes down that would change
//! the nested build (rustflags, wrappers, target and target-dir settings) is cleared, and the component is built
//! with `-C target-feature=+simd128` so memchr takes its wasm32 SIMD path.

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

use sha2::{Digest, Sha256};

const TARGET: &str = "wasm32-wasip2";
const PROFILE: &str = "component";

fn main() {
    let manifest_dir = PathBuf::from(
        env::var_os("CARGO_MANIFEST_DIR")
            .unwrap_or_else(|| panic!("CARGO_MANIFEST_DIR is not set")),
    );
    let workspace = manifest_dir
        .parent()
        .unwrap_or_else(|| panic!("host has no parent directory"))
        .to_path_buf();

    for input in ["src", "wit", "Cargo.toml", "Cargo.lock"] {
        println!("cargo:rerun-if-changed={}", workspace.join(input).display());
    }
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

    ensure_target_installed();

    let target_dir = workspace.join("target").join("component-build");
    let cargo = env::var_os("CARGO").unwrap_or_else(|| "cargo".into());

    let mut command = Command::new(&cargo);
    command
        .current_dir(&workspace)
        .args([
            "build",
            "-p",
            "read-window",
            "--lib",
            "--target",
            TARGET,
            "--profile",
            PROFILE,
        ])
        .arg("--target-dir")
        .arg(&target_dir);
    clear_inherited_env(&mut command);
    // CARGO_ENCODED_RUSTFLAGS separates flags with 0x1f.
    command.env("CARGO_ENCODED_RUSTFLAGS", "-C\u{1f}target-feature=+simd128");

    let output = command
        .output()
        .unwrap_or_else(|e| panic!("could not run `{}`: {e}", Path::new(&cargo).display()));
    if !output.status.success() {
        eprintln!("{}", String::from_utf8_lossy(&output.stderr));
        panic!(
            "building the read-window component for {TARGET} failed ({}); its cargo output is above",
            output.status
        );
    }

    let wasm = target_dir
        .join(TARGET)
        .join(PROFILE)
        .join("read_window.wasm");
    if !wasm.is_file() {
        panic!(
            "the component build succeeded but {} is missing; is the root crate's crate-type still cdylib?",
            wasm.display()
        );
    }
    let wasm = wasm.canonicalize().unwrap_or(wasm);
    println!("cargo:rustc-env=READ_WINDOW_WASM={}", wasm.display());
    // The host embeds the component (`include_bytes!` of `$OUT_DIR/read_window.wasm`) and keys its compiled-code
    // cache by this digest, so a start-up never reads or hashes the wasm itself. The embedded copy and the digest
    // come from one read: a concurrent build rewriting the component file cannot make them disagree.
    let bytes = std::fs::read(&wasm)
        .unwrap_or_else(|e| panic!("could not read the built component {}: {e}", wasm.display()));
    let digest: String = Sha256::digest(&bytes)
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect();
    let out_dir =
        PathBuf::from(env::var_os("OUT_DIR").unwrap_or_else(|| panic!("OUT_DIR is not set")));
    let embedded = out_dir.join("read_window.wasm");
    std::fs::write(&embedded, &bytes)
        .unwrap_or_else(|e| panic!("could not write {}: {e}", embedded.display()));
    println!("cargo:rustc-env=READ_WINDOW_WASM_SHA256={digest}");
}

/// Adds the `wasm32-wasip2` target with rustup when the active toolchain lacks it.
///
/// Without rustup (a toolchain installed another way) the check is skipped and the nested build reports a
/// missing target itself.
fn ensure_target_installed() {
    let listed = match Command::new("rustup")
        .args(["target", "list", "--installed"])
        .output()
    {
        Ok(out) if out.status.success() => out.stdout,
        Ok(_) | Err(_) => {
            println!(
                "cargo:warning=rustup is not available; assuming the {TARGET} target is installed"
            );
            return;
        }
    };
    if String::from_utf8_lossy(&listed)
        .lines()
        .any(|line| line.trim() == TARGET)
    {
        return;
    }
    let added = Command::new("rustup")
        .args(["target", "add", TARGET])
        .status();
    if !matches!(added, Ok(status) if status.success()) {
        panic!("the {TARGET} target is not installed and could not be added: run `rustup target add {TARGET}`");
    }
}

/// Clears the variables the outer cargo sets or inherits that would change or break the nested build.
fn clear_inherited_env(command: &mut Command) {
    for name in [
        "CARGO_ENCODED_RUSTFLAGS",
        "RUSTFLAGS",
        "CARGO_ENCODED_RUSTDOCFLAGS",
        "RUSTDOCFLAGS",
        "RUSTC_WRAPPER",
        "RUSTC_WORKSPACE_WRAPPER",
        "CARGO_TARGET_DIR",
        "CARGO_BUILD_TARGET",
        "CARGO_BUILD_TARGET_DIR",
        "CARGO_BUILD_RUSTFLAGS",
        "CARGO_BUILD_RUSTC_WRAPPER",
        "CARGO_BUILD_RUSTC_WORKSPACE_WRAPPER",
    ] {
        command.env_remove(name);
    }
    // Per-target settings (`CARGO_TARGET_<TRIPLE>_RUSTFLAGS`, `..._LINKER`, `..._RUNNER`) and the remaining
    // `CARGO_BUILD_*` settings.
    for (name, _) in env::vars_os() {
        if let Some(name) = name.to_str() {
            if name.starts_with("CARGO_TARGET_") || name.starts_with("CARGO_BUILD_") {
                command.env_remove(name);
            }
        }
    }
}
