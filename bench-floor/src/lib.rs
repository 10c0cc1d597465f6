//! The sandbox floor of `read-window-bench`: what a read costs in the same host when the component does nothing
//! but the WASI calls one read needs (stat the name, open it, stat the open file, positioned reads, close) and
//! returns the bytes as a string. No guards, no window, no gutter, no session memory. See docs/benchmarks.md.
#![cfg(target_arch = "wasm32")]

wit_bindgen::generate!({
    path: "wit",
    world: "floor",
});

use wasi::filesystem::preopens::get_directories;
use wasi::filesystem::types::{Descriptor, DescriptorFlags, OpenFlags, PathFlags};

/// The most bytes one positioned read asks for (wasmtime-wasi returns at most 64 KiB a call).
const BLOCK_BYTES: u64 = 64 * 1024;

std::thread_local! {
    /// The first preopen, found once per instance (read-window keeps its preopens for the instance too).
    static ROOT: Option<Descriptor> = get_directories().into_iter().next().map(|(descriptor, _)| descriptor);
}

struct Floor;

impl Guest for Floor {
    fn read_range(path: String, offset: u64, length: u64) -> Result<String, String> {
        ROOT.with(|root| {
            let root = root.as_ref().ok_or_else(|| "no preopen".to_string())?;
            read_range(root, &path, offset, length)
        })
    }
}

/// The bytes of `path` beneath `root` from `offset`, at most `length` of them, as text.
fn read_range(root: &Descriptor, path: &str, offset: u64, length: u64) -> Result<String, String> {
    let name = |code: wasi::filesystem::types::ErrorCode| code.name().to_string();
    let stat = root.stat_at(PathFlags::empty(), path).map_err(name)?;
    let file = root
        .open_at(
            PathFlags::empty(),
            path,
            OpenFlags::empty(),
            DescriptorFlags::READ,
        )
        .map_err(name)?;
    file.stat().map_err(name)?;
    let end = stat.size.min(offset.saturating_add(length));
    let mut bytes = Vec::new();
    let mut at = offset;
    while at < end {
        let (block, end_of_stream) = file.read((end - at).min(BLOCK_BYTES), at).map_err(name)?;
        at += block.len() as u64;
        bytes.extend_from_slice(&block);
        if end_of_stream || block.is_empty() {
            break;
        }
    }
    drop(file);
    Ok(String::from_utf8(bytes)
        .unwrap_or_else(|error| String::from_utf8_lossy(error.as_bytes()).into_owned()))
}

export!(Floor);
