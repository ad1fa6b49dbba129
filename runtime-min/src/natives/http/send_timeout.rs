//! A connection whose client takes nothing of its response for a while is
//! cut off, as nginx's `send_timeout` does: without it, a client that asks
//! for a big file or listing and never reads held its connection, its
//! exchange and the stream behind it for ever, and 1,024 such clients (the
//! most connections a listener keeps) left the site serving nobody.
//!
//! The socket is wrapped: a write that cannot go on (the client's window
//! and the kernel's buffer are full) arms a timer, which any write that
//! goes on disarms. The timer is made only then, so a client that reads
//! costs nothing more.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::Sleep;

pub(crate) struct SendTimeout<T> {
    inner: T,
    timeout: Duration,
    /// Armed while a write waits for the client to take what was sent.
    waiting: Option<Pin<Box<Sleep>>>,
}

impl<T> SendTimeout<T> {
    pub fn new(inner: T, timeout: Duration) -> SendTimeout<T> {
        SendTimeout {
            inner,
            timeout,
            waiting: None,
        }
    }

    /// What a write that could not go on comes to: `Pending` until the
    /// client has taken nothing for the timeout, then an error that ends
    /// the connection.
    fn stalled<R>(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<R>> {
        let timeout = self.timeout;
        let timer = self
            .waiting
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(timeout)));
        match timer.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!(
                    "the client took nothing of its response for {} s",
                    timeout.as_secs_f64()
                ),
            ))),
            Poll::Pending => Poll::Pending,
        }
    }

    fn went_on<R>(&mut self, r: Poll<io::Result<R>>, cx: &mut Context<'_>) -> Poll<io::Result<R>> {
        match r {
            Poll::Ready(r) => {
                self.waiting = None;
                Poll::Ready(r)
            }
            Poll::Pending => self.stalled(cx),
        }
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for SendTimeout<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for SendTimeout<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let r = Pin::new(&mut self.inner).poll_write(cx, buf);
        self.went_on(r, cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let r = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        self.went_on(r, cx)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let r = Pin::new(&mut self.inner).poll_flush(cx);
        self.went_on(r, cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let r = Pin::new(&mut self.inner).poll_shutdown(cx);
        self.went_on(r, cx)
    }
}
