//! Progress bars on stderr, drawn only when stderr is a terminal (the callers decide) and
//! never when `--quiet`.

use std::io::Read;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A bar over bytes read: with a total when the input's length is known (a file), else a
/// spinner with the bytes read so far (stdin).
pub(crate) fn bytes(length: Option<u64>) -> ProgressBar {
    let pb = ProgressBar::with_draw_target(length, ProgressDrawTarget::stderr());
    let template = match length {
        Some(_) => "judging {bytes}/{total_bytes} {wide_bar} {eta}",
        None => "{spinner} judging: {bytes} read",
    };
    pb.set_style(ProgressStyle::with_template(template).expect("valid template"));
    pb
}

/// A reader that advances a progress bar by the bytes it reads.
pub(crate) struct Counted<R> {
    inner: R,
    bar: Option<ProgressBar>,
}

impl<R> Counted<R> {
    pub(crate) fn new(inner: R, bar: Option<ProgressBar>) -> Counted<R> {
        Counted { inner, bar }
    }
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        if let Some(pb) = &self.bar {
            pb.inc(n as u64);
        }
        Ok(n)
    }
}
