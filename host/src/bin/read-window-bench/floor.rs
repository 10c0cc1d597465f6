//! The sandbox floor: `bench-floor/`, a component that makes the WASI calls one read needs (stat, open, stat the
//! open file, positioned reads, close) and returns the bytes as a string, loaded into the engine of the component
//! under test and called as the host calls it (a store per session, a current-thread Tokio runtime entered
//! around the call, the epoch deadline set). Everything read-window does beyond those calls is what its rows add.

use std::path::{Path, PathBuf};
use std::process::Command;

use wasmtime::component::{Component, Linker, ResourceTable, TypedFunc};
use wasmtime::Store;
use wasmtime_wasi::{FsPerms, WasiCtx, WasiCtxBuilder, WasiCtxView, WasiView};

use read_window_host::ReadWindow;

use crate::fixtures::Fixture;
use crate::measure::{time_runs, Row, RssMark};

/// The method cell of the floor's rows.
pub(super) const FLOOR_METHOD: &str = "sandbox floor: the same WASI calls, nothing else";

/// The environment variable naming a floor component built elsewhere (else the bench builds `bench-floor/`).
const FLOOR_WASM_ENV: &str = "READ_WINDOW_BENCH_FLOOR_WASM";

/// The most bytes read-window reads in one positioned read: a file this size or smaller is read whole.
pub(super) const BLOCK_BYTES: u64 = 64 * 1024;

/// Epoch ticks a floor call may take: far more than any read needs (the engine's ticker runs every 10 ms).
const DEADLINE_TICKS: u64 = 60_000;

/// A store's state: WASI over the bench's directory, read-only.
struct FloorState {
    wasi: WasiCtx,
    table: ResourceTable,
}

impl WasiView for FloorState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.wasi,
            table: &mut self.table,
        }
    }
}

/// The floor component, instantiated over one directory: the equivalent of a warm session.
pub(super) struct Floor {
    /// The directory granted (at `/`).
    dir: PathBuf,
    store: Store<FloorState>,
    read_range: TypedFunc<(String, u64, u64), (Result<String, String>,)>,
    runtime: tokio::runtime::Runtime,
}

impl Floor {
    /// Builds (or takes `$READ_WINDOW_BENCH_FLOOR_WASM`) the floor component, compiles it in `component`'s
    /// engine and instantiates it over `dir`. Errors: the build, the compilation or the instantiation failed (the
    /// message says which; the bench prints it instead of the rows).
    pub(super) fn start(component: &ReadWindow, dir: &Path) -> Result<Floor, String> {
        let wasm = floor_wasm()?;
        let engine = component.engine();
        let compiled = Component::from_file(engine, &wasm)
            .map_err(|e| format!("cannot compile {}: {e:#}", wasm.display()))?;
        release_freed_memory();
        let mut linker = Linker::new(engine);
        wasmtime_wasi::p2::add_to_linker_sync(&mut linker).map_err(|e| format!("{e:#}"))?;
        let mut builder = WasiCtxBuilder::new();
        builder.allow_blocking_current_thread(true);
        builder
            .preopened_dir(dir, "/", FsPerms::ReadOnly)
            .map_err(|e| format!("cannot grant {}: {e:#}", dir.display()))?;
        let state = FloorState {
            wasi: builder.build(),
            table: ResourceTable::new(),
        };
        let mut store = Store::new(engine, state);
        store.set_epoch_deadline(DEADLINE_TICKS);
        let instance = linker
            .instantiate(&mut store, &compiled)
            .map_err(|e| format!("cannot instantiate the floor: {e:#}"))?;
        let read_range = instance
            .get_typed_func(&mut store, "read-range")
            .map_err(|e| format!("the floor lacks read-range: {e:#}"))?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .map_err(|e| format!("no Tokio runtime: {e}"))?;
        Ok(Floor {
            dir: dir.to_path_buf(),
            store,
            read_range,
            runtime,
        })
    }

    /// `length` bytes of `name` (in the granted directory) from byte `offset`, as the floor returns them; panics
    /// (a fixture error) when the call fails.
    pub(super) fn read(&mut self, name: &str, offset: u64, length: u64) -> String {
        let _entered = self.runtime.enter();
        self.store.set_epoch_deadline(DEADLINE_TICKS);
        let (answer,) = self
            .read_range
            .call(&mut self.store, (name.to_string(), offset, length))
            .unwrap_or_else(|e| panic!("the floor trapped: {e:#}"));
        answer.unwrap_or_else(|e| panic!("the floor could not read {name}: {e}"))
    }
}

/// Hands the heap that compiling the floor freed back to the system (Cranelift's working memory, about 110 MiB),
/// so it does not stay in the resident set every later row's peak RSS starts from.
fn release_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free heap pages to the kernel; it takes no pointers.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// The floor component's file: `$READ_WINDOW_BENCH_FLOOR_WASM`, else `bench-floor/` (a workspace of its own, so
/// the packaged crates' lock file never names it) built for wasm32-wasip2 in the component's target directory (a
/// few seconds the first time, then nothing).
fn floor_wasm() -> Result<PathBuf, String> {
    if let Some(path) = std::env::var_os(FLOOR_WASM_ENV).filter(|path| !path.is_empty()) {
        return Ok(PathBuf::from(path));
    }
    let repository = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .ok_or("the host crate has no parent directory")?;
    let target_dir = repository.join("target").join("component-build");
    let status = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .current_dir(repository)
        .args(["build", "-q", "--manifest-path", "bench-floor/Cargo.toml"])
        .args(["--target", "wasm32-wasip2", "--profile", "component"])
        .arg("--target-dir")
        .arg(&target_dir)
        .env("CARGO_ENCODED_RUSTFLAGS", "-Ctarget-feature=+simd128")
        .env_remove("RUSTFLAGS")
        .status()
        .map_err(|e| {
            format!("cannot run cargo to build bench-floor/ (set ${FLOOR_WASM_ENV}): {e}")
        })?;
    if !status.success() {
        return Err(format!(
            "building bench-floor/ failed ({status}); set ${FLOOR_WASM_ENV} to a built floor"
        ));
    }
    Ok(target_dir
        .join("wasm32-wasip2")
        .join("component")
        .join("read_window_bench_floor.wasm"))
}

/// The byte range of lines `first..first + lines` (1-based) of a file whose lines are all `line_bytes` long.
pub(super) fn line_range(first: u64, lines: u64, line_bytes: u64) -> (u64, u64) {
    (first.saturating_sub(1) * line_bytes, lines * line_bytes)
}

/// The floor's row for `label`: `runs` reads (after 10 to warm up) of `length` bytes of `file` from byte
/// `offset`, each checked to hold `lines` line feeds; `None` when the floor did not start.
pub(super) fn floor_row(
    floor: Option<&mut Floor>,
    label: &str,
    file: &Fixture,
    (offset, length): (u64, u64),
    lines: u64,
    runs: usize,
) -> Option<Row> {
    let floor = floor?;
    // The path under the grant, in one open (WASI walks its directories).
    let name = file
        .host
        .strip_prefix(&floor.dir)
        .ok()?
        .to_string_lossy()
        .into_owned();
    let rss = RssMark::start();
    for _ in 0..10 {
        floor.read(&name, offset, length);
    }
    let samples = time_runs(runs, |_| {
        let text = floor.read(&name, offset, length);
        assert_eq!(text.matches('\n').count() as u64, lines, "sandbox floor");
    });
    Some(Row::new(label, FLOOR_METHOD, samples).rss(rss.end()))
}
