//! The guest's stderr: the last few KiB, kept to explain a trap (a Rust panic prints its message there before
//! it aborts). Writes never fail and never block, however much the guest writes.

use std::collections::VecDeque;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};

use tokio::io::AsyncWrite;
use wasmtime_wasi::cli::{IsTerminal, StdoutStream};

/// An output stream that keeps only its last `capacity` bytes.
#[derive(Clone, Debug)]
pub(crate) struct TailPipe {
    buffer: Arc<Mutex<VecDeque<u8>>>,
    capacity: usize,
}

impl TailPipe {
    pub(crate) fn new(capacity: usize) -> Self {
        TailPipe {
            buffer: Arc::new(Mutex::new(VecDeque::with_capacity(capacity))),
            capacity,
        }
    }

    fn lock(&self) -> MutexGuard<'_, VecDeque<u8>> {
        match self.buffer.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        }
    }

    /// The kept bytes as text (invalid UTF-8 replaced), whitespace trimmed, lines joined by ` | `, without the
    /// panic handler's "run with `RUST_BACKTRACE=1`" note.
    pub(crate) fn tail_text(&self) -> String {
        let bytes: Vec<u8> = self.lock().iter().copied().collect();
        let text = String::from_utf8_lossy(&bytes);
        text.lines()
            .map(str::trim)
            .filter(|line| {
                !line.is_empty() && !line.starts_with("note: run with `RUST_BACKTRACE=1`")
            })
            .collect::<Vec<_>>()
            .join(" | ")
    }

    fn append(&self, data: &[u8]) {
        let mut buffer = self.lock();
        let keep = data.len().min(self.capacity);
        let tail = &data[data.len() - keep..];
        let overflow = (buffer.len() + tail.len())
            .saturating_sub(self.capacity)
            .min(buffer.len());
        buffer.drain(..overflow);
        buffer.extend(tail);
    }
}

impl AsyncWrite for TailPipe {
    fn poll_write(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.append(data);
        Poll::Ready(Ok(data.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

impl IsTerminal for TailPipe {
    fn is_terminal(&self) -> bool {
        false
    }
}

impl StdoutStream for TailPipe {
    fn async_stream(&self) -> Box<dyn AsyncWrite + Send + Sync> {
        Box::new(self.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::TailPipe;

    #[test]
    fn keeps_only_the_tail() {
        let pipe = TailPipe::new(8);
        pipe.append(b"hello ");
        pipe.append(b"world\n");
        assert_eq!(pipe.tail_text(), "o world");
        pipe.append(b"0123456789abcdef");
        assert_eq!(pipe.tail_text(), "89abcdef");
        let pipe = TailPipe::new(4096);
        pipe.append(b"panicked at src/x.rs:1:2:\nboom\nnote: run with `RUST_BACKTRACE=1` environment variable\n");
        assert_eq!(pipe.tail_text(), "panicked at src/x.rs:1:2: | boom");
    }
}
