//! The server's stdin and stdout, read and written on the runtime's own thread.
//!
//! Tokio's `stdin()` and `stdout()` do each read and write on its blocking pool: two thread hand-offs a message,
//! most of a small call's time. Clients start a server with pipes (Python's `subprocess`, Rust's `Command`) or
//! with a socket pair (Node's `child_process`, so Claude Code, Claude Desktop and the TypeScript SDK):
//!
//! - pipes go through rmcp's [`rmcp::transport::stdio_pipes`] (reopened non-blocking on their own open file
//!   descriptions);
//! - sockets are read and written with `MSG_DONTWAIT` on duplicates of stdin and stdout, waiting on the runtime's
//!   reactor ([`SocketHalf`]): the streams' own flags stay blocking for the process and anything it starts;
//! - anything else (a terminal, a file) falls back to Tokio's blocking handles.

use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use rmcp::transport::{StdioReader, StdioWriter};
use tokio::io::unix::AsyncFd;
use tokio::io::{AsyncRead, AsyncWrite, Interest, ReadBuf};

/// The server's input: stdin as a pipe (or a blocking handle), or as a socket.
pub enum Input {
    /// rmcp's handle: a non-blocking pipe, or Tokio's blocking stdin.
    Stdio(StdioReader),
    /// A socket read with `MSG_DONTWAIT`.
    Socket(SocketHalf),
}

/// The server's output: stdout as a pipe (or a blocking handle), or as a socket.
pub enum Output {
    /// rmcp's handle: a non-blocking pipe, or Tokio's blocking stdout.
    Stdio(StdioWriter),
    /// A socket written with `MSG_DONTWAIT`.
    Socket(SocketHalf),
}

/// The transport for this process's stdin and stdout (see the module's doc).
///
/// Must be called inside the Tokio runtime that will drive it, with I/O enabled.
pub fn transport() -> (Input, Output) {
    if let Some((input, output)) = socket_pair() {
        return (Input::Socket(input), Output::Socket(output));
    }
    let (input, output) = rmcp::transport::stdio_pipes();
    (Input::Stdio(input), Output::Stdio(output))
}

/// Whether stdin has bytes waiting to be read (or its end), without reading them: `poll` with no timeout.
pub fn input_waiting() -> bool {
    let mut stdin = libc::pollfd {
        fd: io::stdin().as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one valid `pollfd`, for the length of the call.
    let ready = unsafe { libc::poll(&mut stdin, 1, 0) };
    ready > 0 && stdin.revents != 0
}

/// Stdin and stdout as sockets, when both are.
fn socket_pair() -> Option<(SocketHalf, SocketHalf)> {
    let stdin = io::stdin();
    let stdout = io::stdout();
    if !is_socket(stdin.as_fd()) || !is_socket(stdout.as_fd()) {
        return None;
    }
    let input = SocketHalf::new(stdin.as_fd(), Interest::READABLE).ok()?;
    let output = SocketHalf::new(stdout.as_fd(), Interest::WRITABLE).ok()?;
    Some((input, output))
}

/// Whether `fd` is a socket.
fn is_socket(fd: BorrowedFd<'_>) -> bool {
    use std::os::unix::fs::FileTypeExt;
    fd.try_clone_to_owned()
        .map(std::fs::File::from)
        .and_then(|file| file.metadata())
        .is_ok_and(|metadata| metadata.file_type().is_socket())
}

/// One direction of a socket: a duplicate of its descriptor, registered with the runtime's reactor, read or
/// written only with `MSG_DONTWAIT` (so the descriptor's own blocking flag is never changed).
pub struct SocketHalf {
    fd: AsyncFd<OwnedFd>,
}

impl SocketHalf {
    /// A duplicate of `fd`, waited on for `interest`.
    ///
    /// Errors: the descriptor could not be duplicated, or the reactor refused it.
    fn new(fd: BorrowedFd<'_>, interest: Interest) -> io::Result<Self> {
        let duplicate = fd.try_clone_to_owned()?;
        // SAFETY: the `AsyncFd` owns the duplicate, which stays open (the same descriptor, the same open file
        // description) until the `AsyncFd` is dropped.
        let fd = unsafe { AsyncFd::register_with_interest(duplicate, interest) }?;
        Ok(SocketHalf { fd })
    }
}

/// The byte count of a `recv` or `send`, or its error (`EINTR` and `EAGAIN` included, for the caller).
fn transferred(count: isize) -> io::Result<usize> {
    usize::try_from(count).map_err(|_| io::Error::last_os_error())
}

impl AsyncRead for SocketHalf {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        loop {
            let mut guard = ready!(self.fd.poll_read_ready(cx))?;
            let unfilled = buf.initialize_unfilled();
            let received = guard.try_io(|fd| {
                // SAFETY: `unfilled` is a writable buffer of `unfilled.len()` initialized bytes, alive for the call.
                let count = unsafe {
                    libc::recv(
                        fd.as_raw_fd(),
                        unfilled.as_mut_ptr().cast(),
                        unfilled.len(),
                        libc::MSG_DONTWAIT,
                    )
                };
                transferred(count)
            });
            match received {
                Ok(Ok(count)) => {
                    buf.advance(count);
                    return Poll::Ready(Ok(()));
                }
                Ok(Err(error)) if error.kind() == io::ErrorKind::Interrupted => {}
                Ok(Err(error)) => return Poll::Ready(Err(error)),
                // Not readable after all: the readiness was cleared; wait again.
                Err(_would_block) => {}
            }
        }
    }
}

impl AsyncWrite for SocketHalf {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bytes: &[u8],
    ) -> Poll<io::Result<usize>> {
        loop {
            let mut guard = ready!(self.fd.poll_write_ready(cx))?;
            let sent = guard.try_io(|fd| {
                // SAFETY: `bytes` is a readable buffer of `bytes.len()` bytes, alive for the call.
                let count = unsafe {
                    libc::send(
                        fd.as_raw_fd(),
                        bytes.as_ptr().cast(),
                        bytes.len(),
                        libc::MSG_DONTWAIT | libc::MSG_NOSIGNAL,
                    )
                };
                transferred(count)
            });
            match sent {
                Ok(Err(error)) if error.kind() == io::ErrorKind::Interrupted => {}
                Ok(result) => return Poll::Ready(result),
                Err(_would_block) => {}
            }
        }
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        // Nothing is buffered here: every byte `poll_write` took is in the socket.
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        // SAFETY: shutting down the writing side of a descriptor this value owns.
        let status = unsafe { libc::shutdown(self.fd.as_raw_fd(), libc::SHUT_WR) };
        let error = io::Error::last_os_error();
        Poll::Ready(
            if status == 0 || error.raw_os_error() == Some(libc::ENOTCONN) {
                Ok(())
            } else {
                Err(error)
            },
        )
    }
}

impl AsyncRead for Input {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Input::Stdio(reader) => Pin::new(reader).poll_read(cx, buf),
            Input::Socket(socket) => Pin::new(socket).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for Output {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bytes: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Output::Stdio(writer) => Pin::new(writer).poll_write(cx, bytes),
            Output::Socket(socket) => Pin::new(socket).poll_write(cx, bytes),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Output::Stdio(writer) => Pin::new(writer).poll_flush(cx),
            Output::Socket(socket) => Pin::new(socket).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Output::Stdio(writer) => Pin::new(writer).poll_shutdown(cx),
            Output::Socket(socket) => Pin::new(socket).poll_shutdown(cx),
        }
    }
}
