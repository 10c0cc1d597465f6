//! The session protocol, owned by the component: one JSON request object in, one JSON answer object out, so
//! that every host is a pipe. [`ProtocolSession`] runs it over a file system; the WIT `protocol` interface
//! exports it. Ops, fields and the answer shape are documented in `docs/protocol.md`; the scenario files in
//! `tests/scenarios/` pin them on every host.

mod answers;
mod capture_requests;
mod census_answers;
mod census_requests;
pub mod census_tools;
pub mod config_json;
mod json_in;
mod json_out;
pub mod mcp;
pub mod mcp_server;
pub mod options;
mod requests;
mod session;
pub mod tools;

pub use answers::{error_json, host_error_json, note_json, with_id};
pub use json_in::parse_strict;
pub use json_out::json_text;
pub use requests::{parse_request, LinkRefusal};
pub use session::{host_error_answer, Environment, ProtocolSession};
