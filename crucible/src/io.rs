//! Readers and writers of frame streams over blocking `std::io` and over
//! tokio, both on the sans-IO core of `frame.rs`. A reader enforces its
//! direction's rules: a response stream that ends without its exit frame,
//! or inside a frame, is an error, never a clean end.

use std::io::{Read, Write};

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use crate::frame::{
    Decoder, Direction, Frame, FrameError, FrameType, StreamCheck, encode_data, encode_frame,
};
use crate::wire::ExecResult;

/// Why reading a stream failed.
#[derive(Debug)]
pub enum ReadError {
    Io(std::io::Error),
    Frame(FrameError),
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::Io(e) => write!(f, "{e}"),
            ReadError::Frame(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ReadError {}

impl From<FrameError> for ReadError {
    fn from(e: FrameError) -> ReadError {
        ReadError::Frame(e)
    }
}

impl From<std::io::Error> for ReadError {
    fn from(e: std::io::Error) -> ReadError {
        ReadError::Io(e)
    }
}

/// The state a reader keeps between reads, whichever IO it sits on.
struct Core {
    decoder: Decoder,
    check: StreamCheck,
    eof: bool,
}

impl Core {
    fn new(dir: Direction) -> Core {
        Core {
            decoder: Decoder::new(),
            check: StreamCheck::new(dir),
            eof: false,
        }
    }

    /// A frame if one is whole; `Ok(None)` when more input is needed.
    fn poll(&mut self) -> Result<Option<Frame>, FrameError> {
        match self.decoder.next_frame()? {
            Some(f) => {
                self.check.check(&f)?;
                Ok(Some(f))
            }
            None => Ok(None),
        }
    }

    /// Input ended: a clean end, or why not.
    fn end(&mut self) -> Result<(), FrameError> {
        self.eof = true;
        self.decoder.finish()?;
        self.check.at_eof()
    }
}

const READ_SIZE: usize = 64 * 1024;

/// Reads frames from a blocking reader.
pub struct FrameReader<R> {
    inner: R,
    core: Core,
    buf: Vec<u8>,
}

impl<R: Read> FrameReader<R> {
    pub fn new(inner: R, dir: Direction) -> FrameReader<R> {
        FrameReader {
            inner,
            core: Core::new(dir),
            buf: vec![0; READ_SIZE],
        }
    }

    /// The next frame; `Ok(None)` at a clean end of the stream.
    pub fn read_frame(&mut self) -> Result<Option<Frame>, ReadError> {
        loop {
            if let Some(f) = self.core.poll()? {
                return Ok(Some(f));
            }
            if self.core.eof {
                return Ok(None);
            }
            let n = self.inner.read(&mut self.buf)?;
            if n == 0 {
                self.core.end()?;
                return Ok(None);
            }
            self.core.decoder.feed(&self.buf[..n]);
        }
    }
}

/// Reads frames from a tokio reader.
pub struct AsyncFrameReader<R> {
    inner: R,
    core: Core,
    buf: Vec<u8>,
}

impl<R: AsyncRead + Unpin> AsyncFrameReader<R> {
    pub fn new(inner: R, dir: Direction) -> AsyncFrameReader<R> {
        AsyncFrameReader {
            inner,
            core: Core::new(dir),
            buf: vec![0; READ_SIZE],
        }
    }

    /// Bytes read ahead of this reader (after an HTTP head, say).
    pub fn feed(&mut self, bytes: &[u8]) {
        self.core.decoder.feed(bytes);
    }

    /// The next frame; `Ok(None)` at a clean end of the stream.
    pub async fn read_frame(&mut self) -> Result<Option<Frame>, ReadError> {
        loop {
            if let Some(f) = self.core.poll()? {
                return Ok(Some(f));
            }
            if self.core.eof {
                return Ok(None);
            }
            let n = self.inner.read(&mut self.buf).await?;
            if n == 0 {
                self.core.end()?;
                return Ok(None);
            }
            self.core.decoder.feed(&self.buf[..n]);
        }
    }
}

/// A frame reader over bytes handed to it (WebSocket messages, say): the
/// concatenation is the stream, message boundaries mean nothing.
pub struct PushReader {
    core: Core,
}

impl PushReader {
    pub fn new(dir: Direction) -> PushReader {
        PushReader {
            core: Core::new(dir),
        }
    }

    pub fn feed(&mut self, bytes: &[u8]) {
        self.core.decoder.feed(bytes);
    }

    /// The next whole frame, if one is in.
    pub fn next_frame(&mut self) -> Result<Option<Frame>, FrameError> {
        self.core.poll()
    }

    /// Whether the last frame of the direction has come.
    pub fn ended(&self) -> bool {
        self.core.check.ended()
    }

    /// The input ended: a clean end, or why not.
    pub fn end(&mut self) -> Result<(), FrameError> {
        self.core.end()
    }
}

/// The bytes a write of `kind` puts on the wire: data chunked, control
/// frames whole (also for transports that carry the bytes themselves, such
/// as WebSocket messages).
pub fn encode(kind: FrameType, data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len() + 16);
    match kind {
        FrameType::Stdin | FrameType::Stdout | FrameType::Stderr => {
            encode_data(kind, data, &mut out)
        }
        FrameType::Exit | FrameType::StdinClose => encode_frame(kind, data, &mut out),
    }
    out
}

/// The bytes of the exit frame carrying `r`.
pub fn encode_exit(r: &ExecResult) -> Vec<u8> {
    encode(FrameType::Exit, &Frame::exit(r).payload)
}

/// Writes frames to a blocking writer.
pub struct FrameWriter<W> {
    inner: W,
}

impl<W: Write> FrameWriter<W> {
    pub fn new(inner: W) -> FrameWriter<W> {
        FrameWriter { inner }
    }

    /// A logical write of `kind` (stdin, stdout, stderr), chunked as it must be.
    pub fn write(&mut self, kind: FrameType, data: &[u8]) -> std::io::Result<()> {
        self.inner.write_all(&encode(kind, data))
    }

    pub fn stdin_close(&mut self) -> std::io::Result<()> {
        self.inner.write_all(&encode(FrameType::StdinClose, &[]))?;
        self.inner.flush()
    }

    pub fn exit(&mut self, r: &ExecResult) -> std::io::Result<()> {
        self.inner.write_all(&encode_exit(r))?;
        self.inner.flush()
    }

    pub fn into_inner(self) -> W {
        self.inner
    }
}

/// Writes frames to a tokio writer.
pub struct AsyncFrameWriter<W> {
    inner: W,
}

impl<W: AsyncWrite + Unpin> AsyncFrameWriter<W> {
    pub fn new(inner: W) -> AsyncFrameWriter<W> {
        AsyncFrameWriter { inner }
    }

    pub async fn write(&mut self, kind: FrameType, data: &[u8]) -> std::io::Result<()> {
        self.inner.write_all(&encode(kind, data)).await?;
        self.inner.flush().await
    }

    pub async fn stdin_close(&mut self) -> std::io::Result<()> {
        self.inner
            .write_all(&encode(FrameType::StdinClose, &[]))
            .await?;
        self.inner.flush().await
    }

    pub async fn exit(&mut self, r: &ExecResult) -> std::io::Result<()> {
        self.inner.write_all(&encode_exit(r)).await?;
        self.inner.flush().await
    }

    pub fn into_inner(self) -> W {
        self.inner
    }
}
