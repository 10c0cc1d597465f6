//! The read-window component as bytes: the WebAssembly component (`wasm32-wasip2`, world
//! `read-window:reader/read-window`) that reads files for LLM agents in bounded windows, with its SHA-256 and
//! its WIT. An embedder loads [`COMPONENT`] with the runtime of its choice (wasmtime, or another that runs
//! WASI preview 2 components) and grants directories as preopens; `read-window-host` is the wasmtime host.
//!
//! Inside the read-window repository the build script builds the component from the root crate; the published
//! crate carries it prebuilt. Either way the bytes are fixed when this crate is compiled.

/// The component's bytes.
pub const COMPONENT: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/read_window.wasm"));

/// The SHA-256 of [`COMPONENT`], 64 lowercase hex digits (a host keys its compiled-code cache by it).
pub const COMPONENT_SHA256: &str = env!("READ_WINDOW_WASM_SHA256");

/// The absolute path of the component file the build took (the repository's
/// `target/component-build/.../read_window.wasm`, or the packaged crate's `prebuilt/read_window.wasm`), for
/// hosts that load a file (Python, JavaScript, `wasmtime run`). It may be gone once the build is; [`COMPONENT`]
/// holds the bytes.
pub const COMPONENT_PATH: &str = env!("READ_WINDOW_WASM");

/// The component's interface, the text of `wit/read-window.wit` (package [`WIT_PACKAGE`]).
pub const WIT: &str = include_str!("../wit/read-window.wit");

/// The WIT package and version the component exports: `read-window:reader@` and this crate's version.
pub const WIT_PACKAGE: &str = concat!("read-window:reader@", env!("CARGO_PKG_VERSION"));

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bytes_are_a_component_with_their_digest_and_wit() {
        // The wasm magic, then the component-model layer's version (0x0d) and layer 1.
        assert_eq!(COMPONENT.get(..8), Some(&b"\0asm\x0d\0\x01\0"[..]));
        assert_eq!(COMPONENT_SHA256.len(), 64);
        assert!(COMPONENT_SHA256
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)));
        assert_eq!(
            std::fs::read(COMPONENT_PATH).ok().as_deref(),
            Some(COMPONENT)
        );
        assert!(
            WIT.contains(&format!("package {WIT_PACKAGE};")),
            "{WIT_PACKAGE}"
        );
    }
}
