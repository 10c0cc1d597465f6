//! The component this crate carries, as `$OUT_DIR/read_window.wasm` (embedded with `include_bytes!`), its
//! path as `READ_WINDOW_WASM` and its SHA-256 (64 lowercase hex digits) as `READ_WINDOW_WASM_SHA256`.
//!
//! Inside the read-window repository (this crate's parent is the `read-window` crate, with `src/lib.rs` and
//! `wit/`), it builds the component from the root crate for `wasm32-wasip2`; elsewhere (the published crate) it
//! takes `prebuilt/read_window.wasm`, which `tools/package-crates` put there, so no wasm32 target is needed.
//!
//! The nested `cargo build` uses its own target directory (`<repository>/target/component-build`): sharing the
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
    println!("cargo:rerun-if-changed=build.rs");
    let wasm = match repository_root(&manifest_dir) {
        Some(repository) => build_component(&repository),
        None => {
            let prebuilt = manifest_dir.join("prebuilt").join("read_window.wasm");
            println!("cargo:rerun-if-changed={}", prebuilt.display());
            if !prebuilt.is_file() {
                panic!(
                    "{} is missing: this crate carries the component prebuilt when it is packaged by \
                     tools/package-crates; inside the read-window repository it builds it",
                    prebuilt.display()
                );
            }
            prebuilt
        }
    };
    let wasm = wasm.canonicalize().unwrap_or(wasm);
    println!("cargo:rustc-env=READ_WINDOW_WASM={}", wasm.display());
    // The embedded copy and the digest come from one read: a concurrent build rewriting the component file
    // cannot make them disagree.
    let bytes = std::fs::read(&wasm)
        .unwrap_or_else(|e| panic!("could not read the component {}: {e}", wasm.display()));
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

/// The read-window repository around this crate: its parent directory when that holds the `read-window` crate
/// (a `Cargo.toml` naming it, `src/lib.rs` and `wit/`); `None` for the published crate, unpacked alone.
fn repository_root(manifest_dir: &Path) -> Option<PathBuf> {
    let parent = manifest_dir.parent()?;
    let manifest = std::fs::read_to_string(parent.join("Cargo.toml")).ok()?;
    let names_it = manifest
        .lines()
        .any(|line| line.replace(' ', "") == "name=\"read-window\"");
    (names_it && parent.join("src").join("lib.rs").is_file() && parent.join("wit").is_dir())
        .then(|| parent.to_path_buf())
}

/// Builds the component from the repository's root crate; returns the `.wasm` file's path.
fn build_component(workspace: &Path) -> PathBuf {
    for input in ["src", "wit", "Cargo.toml", "Cargo.lock"] {
        println!("cargo:rerun-if-changed={}", workspace.join(input).display());
    }
    ensure_target_installed();

    let target_dir = workspace.join("target").join("component-build");
    let cargo = env::var_os("CARGO").unwrap_or_else(|| "cargo".into());

    let mut command = Command::new(&cargo);
    command
        .current_dir(workspace)
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
    // CARGO_ENCODED_RUSTFLAGS separates flags with 0x1f. The paths of this build (the repository, cargo's registry
    // sources) would otherwise end up in the component's panic locations: it ships, so they are remapped.
    let mut flags = vec!["-C".to_owned(), "target-feature=+simd128".to_owned()];
    flags.push(format!(
        "--remap-path-prefix={}=/read-window",
        workspace.display()
    ));
    if let Some(cargo_home) = cargo_home() {
        flags.push(format!(
            "--remap-path-prefix={}=/cargo",
            cargo_home.display()
        ));
    }
    command.env("CARGO_ENCODED_RUSTFLAGS", flags.join("\u{1f}"));

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
    wasm
}

/// Cargo's home (`$CARGO_HOME`, else `~/.cargo`), whose registry sources the component is built from.
fn cargo_home() -> Option<PathBuf> {
    env::var_os("CARGO_HOME")
        .filter(|home| !home.is_empty())
        .map(PathBuf::from)
        .or_else(|| env::var_os("HOME").map(|home| PathBuf::from(home).join(".cargo")))
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
