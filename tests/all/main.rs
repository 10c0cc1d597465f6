//! The integration tests: every test that drives the real component through the wasmtime host, in one binary
//! (each test binary links wasmtime, so one binary builds and links once). A module per area; `common` holds
//! the sandbox and the helpers they share.

mod common;

mod capture;
mod census;
mod cli;
mod document_store;
mod encodings;
mod guards;
mod images;
mod large_files;
mod load;
#[allow(deprecated)]
mod mcp;
mod mcp_fit;
mod scenarios;
mod session_memory;
mod settings;
mod tokens;
mod wasmtime_cli;
